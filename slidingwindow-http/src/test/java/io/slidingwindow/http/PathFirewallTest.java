package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.http.PathFirewall.Allowance;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PathFirewallTest {

  private static final PathFirewall STRICT = PathFirewall.strict();

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/",
        "/v1/product/1",
        "/v1/product/1/",
        "/v1/%70roduct/caf%C3%A9",
        "/a.b/.c/..d/...",
        "/a-b_c~d!$&'()*+,=:@",
        "*",
        "http://127.0.0.1:8080/v1/product/1",
      })
  void check_ofACanonicalPath_letsItThrough(String path) {
    assertThat(STRICT.check(path)).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "/v1/product/..;",
        "/v1/product/..;jsessionid=x",
        "/v1/product/%2e%2e",
        "/v1/product/%2E.",
        "/v1/product/.%2e",
        "/v1/product/..",
        "/v1/product/.",
        "/v1/product/./1",
        "/v1/x/../product/1",
        "/..",
        "/v1/product/1;x=y",
        "/v1/product;jsessionid=abc/1",
        "/v1/product%3Bx=y",
        "/v1/product%3bjsessionid=abc/1",
        "/v1/product/1%3B",
        "/v1//product/1",
        "//v1/product/1",
        "/v1/product%2F1",
        "/v1/product%2f1",
        "/v1/product%5C1",
        "/v1/product%5c1",
        "/v1\\product\\1",
        "/v1/product/%252e%252e",
        "/v1/product/%c0%ae%c0%ae",
        "/v1/product/%ff",
        "/v1/product/%e2%82",
        "/v1/product/%zz",
        "/v1/product/%2",
        "/v1/product/%",
        "/v1/product/%00",
        "/v1/product/%0a",
        "/v1/product/%7F",
        "/v1/product/a b",
        "/v1/product/\t",
        "/v1/product/caf\u00e9",
        "/v1/product/\u0000",
        "v1/product/1",
        "",
        "http://127.0.0.1:8080/v1/product/..",
      })
  void check_ofAnAmbiguousPath_refusesIt(String path) {
    assertThat(STRICT.check(path)).isPresent();
  }

  @Test
  void check_withNull_refusesIt() {
    assertThat(STRICT.check(null)).hasValue("no request URI");
  }

  @Test
  void check_whenOff_letsEverythingThrough() {
    assertThat(PathFirewall.off().enabled()).isFalse();
    assertThat(PathFirewall.off().check("/v1/product/..;")).isEmpty();
    assertThat(PathFirewall.off().check(null)).isEmpty();
  }

  @Test
  void allowing_eachAllowance_letsOnlyItsSpellingThrough() {
    assertThat(PathFirewall.allowing(Allowance.SEMICOLON).check("/a;jsessionid=x/b;v=1")).isEmpty();
    assertThat(PathFirewall.allowing(Allowance.SEMICOLON).check("/a%3Bx/b%3bv=1")).isEmpty();
    assertThat(PathFirewall.allowing(Allowance.ENCODED_PERIOD).check("/a%2Ejson")).isEmpty();
    assertThat(PathFirewall.allowing(Allowance.ENCODED_SLASH).check("/a%2Fb%5cc")).isEmpty();
    assertThat(PathFirewall.allowing(Allowance.ENCODED_PERCENT).check("/100%25")).isEmpty();
    assertThat(PathFirewall.allowing(Allowance.BACKSLASH).check("/a\\b")).isEmpty();
    assertThat(PathFirewall.allowing(Allowance.DOUBLE_SLASH).check("/a//b")).isEmpty();
    // Each allows its own spelling only.
    for (Allowance allowance : Allowance.values()) {
      PathFirewall firewall = PathFirewall.allowing(allowance);
      assertThat(firewall.allowed()).containsExactly(allowance);
      for (String other :
          List.of(
              "/a;x",
              "/a%3Bx",
              "/a%3bx",
              "/a%2Ejson",
              "/a%2Fb",
              "/a%5Cb",
              "/100%25",
              "/a\\b",
              "/a//b")) {
        if (!allowedBy(allowance, other)) {
          assertThat(firewall.check(other)).as("%s with %s", other, allowance).isPresent();
        }
      }
    }
  }

  private static boolean allowedBy(Allowance allowance, String path) {
    return switch (allowance) {
      case SEMICOLON -> path.contains(";") || path.contains("%3B") || path.contains("%3b");
      case ENCODED_PERIOD -> path.contains("%2E");
      case ENCODED_SLASH -> path.contains("%2F") || path.contains("%5C");
      case ENCODED_PERCENT -> path.contains("%25");
      case BACKSLASH -> path.contains("\\");
      case DOUBLE_SLASH -> path.contains("//");
    };
  }

  @Test
  void allowing_everything_stillRefusesDotSegmentsAndBadEncodings() {
    PathFirewall lenient = PathFirewall.allowing(Allowance.values());
    for (String path :
        List.of(
            "/v1/product/..;",
            "/v1/product/..;jsessionid=x",
            "/v1/product/%2e%2e",
            "/v1/product/%2E.",
            "/v1/product/.%2e;x=y",
            "/v1/product/..%3B",
            "/v1/product/..%3bx=y/1",
            "/v1/product/.%3B/1",
            "/v1/product/%2e%2e%3B",
            "/v1/product%2F..%2F",
            "/v1/product%5C..",
            "/v1/product\\..\\x",
            "/v1//product//..//x",
            "/v1/product/%c0%ae%c0%ae",
            "/v1/product/%zz",
            "/v1/product/%00",
            "/v1/product/caf\u00e9")) {
      assertThat(lenient.check(path)).as(path).isPresent();
    }
  }

  @Test
  void allowing_validatesItsArguments() {
    assertThat(PathFirewall.allowing()).isSameAs(PathFirewall.strict());
    assertThatThrownBy(() -> PathFirewall.allowing((Allowance[]) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("allowances");
    assertThatThrownBy(() -> PathFirewall.allowing(Allowance.SEMICOLON, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("[SEMICOLON, null]");
  }

  // Properties: whatever the strict firewall lets through reads the same to every reader.

  @Provide
  Arbitrary<String> pathLike() {
    return Arbitraries.strings()
        .withChars(
            '/', '.', ';', '%', '\\', 'a', 'b', 'B', '2', '3', 'e', 'E', 'f', 'F', '5', 'c', 'C',
            '0')
        .ofMaxLength(16)
        .map(s -> "/" + s);
  }

  @Property(tries = 3000)
  void check_whenItLetsAPathThrough_everyReadingIsThePathItself(@ForAll("pathLike") String path) {
    if (STRICT.check(path).isEmpty()) {
      String decoded = RequestPaths.dispatcherReading(path);
      assertThat(RequestPaths.normalizedReading(path)).isEqualTo(decoded);
      assertThat(RequestPaths.readings(null, path, "")).containsExactly(decoded);
      assertThat(RequestPaths.hasDotSegment(decoded)).isFalse();
      assertThat(path)
          .doesNotContain(";", "\\", "//", "%2e", "%2E", "%25", "%2f", "%2F", "%3b", "%3B");
    }
  }

  @Property(tries = 3000)
  void check_withEverythingAllowed_neverLetsADotSegmentThrough(@ForAll("pathLike") String path) {
    if (PathFirewall.allowing(Allowance.values()).check(path).isEmpty()) {
      assertThat(RequestPaths.hasDotSegment(RequestPaths.dispatcherReading(path))).isFalse();
      // Nor to a reader that decodes %3B before it drops path parameters.
      String decodedFirst = path.replace("%3B", ";").replace("%3b", ";");
      assertThat(RequestPaths.hasDotSegment(RequestPaths.dispatcherReading(decodedFirst)))
          .isFalse();
    }
  }

  @Test
  void allowing_semicolons_letsAnEncodedOneThroughOnlyWhereTheRulesSeeTheParameterDropped() {
    PathFirewall semicolons = PathFirewall.allowing(Allowance.SEMICOLON);
    PathPattern login = PathPattern.of("/api/login");
    for (String path : List.of("/api/login%3Bx=1", "/api/login%3bx=1", "/api/login%3B")) {
      assertThat(semicolons.check(path)).as(path).isEmpty();
      assertThat(RequestPaths.readings(null, path, "")).as(path).anyMatch(login::matches);
    }
  }

  @Property(tries = 3000)
  void check_withSemicolonsAllowed_letsThroughOnlyPathsWhoseDecodedFirstReadingIsARuleReading(
      @ForAll("pathLike") String path) {
    if (PathFirewall.allowing(Allowance.values()).check(path).isEmpty()) {
      String decodedFirst = path.replace("%3B", ";").replace("%3b", ";");
      assertThat(RequestPaths.readings(null, path, ""))
          .contains(RequestPaths.dispatcherReading(decodedFirst));
    }
  }

  @Property
  void check_ofAnyString_neverThrows(@ForAll String path) {
    assertThat(STRICT.check(path)).isNotNull();
    assertThat(PathFirewall.allowing(Allowance.values()).check(path)).isNotNull();
  }
}
