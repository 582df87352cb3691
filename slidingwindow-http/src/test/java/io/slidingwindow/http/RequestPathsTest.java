package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RequestPathsTest {

  @ParameterizedTest(name = "{0} -> {1} | {2}")
  @CsvSource(
      delimiterString = "|",
      value = {
        "/v1/product/1            | /v1/product/1          | /v1/product/1",
        "/v1/product/..;          | /v1/product/..         | /v1/",
        "/v1/product/..;jsessionid=x | /v1/product/..      | /v1/",
        "/v1/product/%2e%2e       | /v1/product/..         | /v1/",
        "/v1/product/%2E.         | /v1/product/..         | /v1/",
        "/v1/product/.            | /v1/product/.          | /v1/product/",
        "/v1/product/1;x=y        | /v1/product/1          | /v1/product/1",
        "/v1;a=b/product;c/1      | /v1/product/1          | /v1/product/1",
        "//v1///product//1//      | /v1/product/1/         | /v1/product/1/",
        "/v1/%70roduct/1          | /v1/product/1          | /v1/product/1",
        "/v1%2Fproduct%2f1        | /v1/product/1          | /v1/product/1",
        "/v1%5Cproduct%5c1        | /v1/product/1          | /v1/product/1",
        "/v1\\product\\1          | /v1/product/1          | /v1/product/1",
        "/v1/x/../product/1       | /v1/x/../product/1     | /v1/product/1",
        "/v1/product/../../admin  | /v1/product/../../admin | /admin",
        "/../../v1/product/1      | /../../v1/product/1    | /v1/product/1",
        "/v1/product/%252e%252e   | /v1/product/%2e%2e     | /v1/product/%2e%2e",
        "/v1/product/%zz          | /v1/product/%zz        | /v1/product/%zz",
        "/v1/product/%            | /v1/product/%          | /v1/product/%",
        "/v1/product/%c0%ae       | /v1/product/\uFFFD\uFFFD | /v1/product/\uFFFD\uFFFD",
        "/v1/product/caf%C3%A9    | /v1/product/caf\u00e9  | /v1/product/caf\u00e9",
        "''                       | /                      | /",
        "/                        | /                      | /",
        "/..                      | /..                    | /",
      })
  void readings_ofSpellings_areTheDispatchersAndTheNormalizedOne(
      String raw, String dispatcher, String normalized) {
    assertThat(RequestPaths.dispatcherReading(raw)).isEqualTo(dispatcher);
    assertThat(RequestPaths.normalizedReading(raw)).isEqualTo(normalized);
  }

  @Test
  void readings_encodedSeparatorInsideASegment_includeTheSegmentAsSpringReadsIt() {
    PathPattern oneSegment = PathPattern.of("/files/{name}");
    for (String raw :
        new String[] {"/files/a%2Fb", "/files/a%2fb", "/files/a%5Cb", "/files/a\\b"}) {
      List<String> readings = RequestPaths.readings("/files/a/b", raw, "");
      assertThat(readings).as(raw).anyMatch(oneSegment::matches);
    }
    assertThat(RequestPaths.segmentReading("/files/a%2Fb;x=1/%41")).isEqualTo("/files/a%2Fb/A");
    assertThat(RequestPaths.segmentReading("/a\\b%5c%2e")).isEqualTo("/a%5Cb%5C.");
  }

  @Test
  void readings_listTheContainerPathFirstThenDistinctRawReadings() {
    assertThat(RequestPaths.readings("/v1/", "/v1/product/..;", ""))
        .containsExactly("/v1/", "/v1/product/..");
    assertThat(RequestPaths.readings("/v1/product/1", "/v1/product/1", ""))
        .containsExactly("/v1/product/1");
    assertThat(RequestPaths.readings("/v1/product/1", "/v1/x/../product/1", null))
        .containsExactly("/v1/product/1", "/v1/x/../product/1");
    assertThat(RequestPaths.readings(null, null, null)).containsExactly("/");
    assertThat(RequestPaths.readings("", null, null)).containsExactly("/");
  }

  @Test
  void readings_stripTheContextPath_literallyOrByReading() {
    assertThat(RequestPaths.readings(null, "/app/v1/product/..;", "/app"))
        .containsExactly("/v1/product/..", "/v1/");
    assertThat(RequestPaths.readings(null, "/app;x=1/v1/product/1", "/app"))
        .containsExactly("/v1/product/1");
    assertThat(RequestPaths.readings(null, "/%61pp/v1/product/1", "/app"))
        .containsExactly("/v1/product/1");
    assertThat(RequestPaths.readings(null, "/application/v1", "/app"))
        .as("a context path is a whole segment")
        .containsExactly("/application/v1");
    assertThat(RequestPaths.readings(null, "/app/../app/v1/product/..;", "/app"))
        .as("after /app, and after /app/../app")
        .containsExactly("/../app/v1/product/..", "/app/v1/", "/v1/product/..", "/v1/");
    assertThat(RequestPaths.withinContext("/app/v1/product/1", "/app"))
        .containsExactly("/v1/product/1");
  }

  @Test
  void readings_ofAnEncodedSemicolon_includeThePathWithItsParametersDropped() {
    PathPattern login = PathPattern.of("/api/login");
    for (String raw : new String[] {"/api/login%3Bx=1", "/api/login%3bx=1", "/api/login%3B"}) {
      assertThat(RequestPaths.readings("/api/login;x=1", raw, ""))
          .as(raw)
          .contains("/api/login")
          .anyMatch(login::matches);
    }
    assertThat(RequestPaths.readings(null, "/api/%2e%2e%3B/login", ""))
        .as("dot segments of the decoded-first reading are resolved too")
        .contains("/api/../login", "/login");
    assertThat(RequestPaths.readings(null, "/app%3Bx/api/login", "/app"))
        .as("only the path within the context; the context itself is stripped as before")
        .contains("/app/api/login");
    assertThat(RequestPaths.decodedSemicolons("/a%3Bx/b%3by;z")).isEqualTo("/a;x/b;y;z");
    String plain = "/api/login;x=1";
    assertThat(RequestPaths.decodedSemicolons(plain)).isSameAs(plain);
  }

  @Test
  void readings_ofAnAbsoluteFormTarget_useItsPath() {
    assertThat(RequestPaths.readings(null, "http://127.0.0.1:8080/v1/product/..", ""))
        .containsExactly("/v1/product/..", "/v1/");
    assertThat(RequestPaths.readings(null, "https://example.test", "")).containsExactly("/");
    assertThat(RequestPaths.pathOfTarget("/a?b=/c#d")).isEqualTo("/a");
  }

  @Test
  void dispatcherReading_ofAPlainPath_isThatVeryString() {
    String path = "/v1/product/1";
    assertThat(RequestPaths.dispatcherReading(path)).isSameAs(path);
  }

  // Properties: a path of plain segments, spelled differently, reads back as itself.

  @Provide
  Arbitrary<List<String>> segments() {
    return Arbitraries.strings()
        .withCharRange('a', 'z')
        .withCharRange('0', '9')
        .withChars('-', '_', '~', '.')
        .ofMinLength(1)
        .ofMaxLength(6)
        .filter(s -> !s.equals(".") && !s.equals(".."))
        .list()
        .ofMinSize(1)
        .ofMaxSize(6);
  }

  private static String join(List<String> segments) {
    return "/" + String.join("/", segments);
  }

  @Property
  void dispatcherReading_ofEncodedCharacters_isThePlainPath(
      @ForAll("segments") List<String> segments, @ForAll long seed) {
    String path = join(segments);
    java.util.Random random = new java.util.Random(seed);
    StringBuilder spelled = new StringBuilder();
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (random.nextInt(3) == 0) {
        String hex = String.format("%%%02X", (int) c);
        spelled.append(random.nextBoolean() ? hex : hex.toLowerCase(java.util.Locale.ROOT));
      } else {
        spelled.append(c);
      }
    }
    assertThat(RequestPaths.dispatcherReading(spelled.toString())).isEqualTo(path);
  }

  @Property
  void readings_ofParametersSlashesAndDotDetours_includeThePlainPath(
      @ForAll("segments") List<String> segments, @ForAll long seed) {
    String path = join(segments);
    java.util.Random random = new java.util.Random(seed);
    StringBuilder spelled = new StringBuilder();
    for (String segment : segments) {
      spelled.append(random.nextBoolean() ? "/" : random.nextBoolean() ? "//" : "\\");
      switch (random.nextInt(4)) {
        case 0 -> spelled.append("x;p=1/..").append(random.nextBoolean() ? ";/" : "/");
        case 1 -> spelled.append("./");
        case 2 -> spelled.append("x/%2e%2E/%2E/");
        default -> {}
      }
      spelled.append(segment);
      if (random.nextBoolean()) {
        spelled.append(";jsessionid=").append(random.nextInt(1000));
      }
    }
    assertThat(RequestPaths.readings(null, spelled.toString(), "")).contains(path);
  }

  @Property
  void readings_ofAnyString_startWithSlashAndNeverThrow(@ForAll String raw) {
    for (String path : RequestPaths.readings(raw, raw, "")) {
      assertThat(path).isNotNull();
    }
    assertThat(RequestPaths.dispatcherReading(raw)).startsWith("/").doesNotContain("//");
    assertThat(RequestPaths.normalizedReading(raw)).startsWith("/").doesNotContain("//");
    assertThat(RequestPaths.hasDotSegment(RequestPaths.normalizedReading(raw))).isFalse();
  }

  @Property
  void readings_underAContextPath_includeThePathAfterTheLiteralContext(
      @ForAll("segments") List<String> segments, @ForAll String rest) {
    String context = join(segments);
    String path = "/" + rest.replaceAll("[/\\\\?#]", "x");
    assertThat(RequestPaths.readings(null, context + path, context))
        .contains(RequestPaths.dispatcherReading(path));
  }
}
