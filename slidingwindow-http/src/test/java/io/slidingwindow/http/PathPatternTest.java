package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class PathPatternTest {

  @Test
  void matches_literal_matchesOnlyThatPath() {
    PathPattern p = PathPattern.of("/v1/product");
    assertThat(p.matches("/v1/product")).isTrue();
    assertThat(p.matches("/v1/product/")).isTrue();
    assertThat(p.matches("//v1//product")).isTrue();
    assertThat(p.matches("/v1/products")).isFalse();
    assertThat(p.matches("/v1/product/7")).isFalse();
    assertThat(p.matches("/V1/product")).isFalse();
    assertThat(p.matches("/v1")).isFalse();
    assertThat(p.matches(null)).isFalse();
  }

  @Test
  void matches_doubleStar_matchesZeroOrMoreSegments() {
    PathPattern p = PathPattern.of("/v1/product/**");
    assertThat(p.matches("/v1/product")).isTrue();
    assertThat(p.matches("/v1/product/7")).isTrue();
    assertThat(p.matches("/v1/product/7/reviews")).isTrue();
    assertThat(p.matches("/v1/productx")).isFalse();
    assertThat(p.matches("/v2/product/7")).isFalse();

    PathPattern middle = PathPattern.of("/api/**/edit");
    assertThat(middle.matches("/api/edit")).isTrue();
    assertThat(middle.matches("/api/a/b/c/edit")).isTrue();
    assertThat(middle.matches("/api/a/b/c/edit/x")).isFalse();

    assertThat(PathPattern.of("/**").matches("/")).isTrue();
    assertThat(PathPattern.of("/**").matches("/anything/at/all")).isTrue();
  }

  @Test
  void matches_starAndQuestionMark_stayWithinOneSegment() {
    PathPattern p = PathPattern.of("/files/*.json");
    assertThat(p.matches("/files/a.json")).isTrue();
    assertThat(p.matches("/files/.json")).isTrue();
    assertThat(p.matches("/files/a/b.json")).isFalse();
    assertThat(p.matches("/files/a.jsonx")).isFalse();

    PathPattern q = PathPattern.of("/v?/items");
    assertThat(q.matches("/v1/items")).isTrue();
    assertThat(q.matches("/v12/items")).isFalse();
    assertThat(q.matches("/v/items")).isFalse();

    assertThat(PathPattern.of("/a*b*c").matches("/aXXbYYbZc")).isTrue();
    assertThat(PathPattern.of("/a*b*c").matches("/aXXbYYbZ")).isFalse();
  }

  @Test
  void matches_pathWithAStarOrQuestionMarkCharacter_readsItAsAnyOtherCharacter() {
    // '*' is a legal path character; a handler for /files/*.json serves /files/*x.json.
    assertThat(PathPattern.of("/files/*.json").matches("/files/*x.json")).isTrue();
    assertThat(PathPattern.of("/a*").matches("/a*b")).isTrue();
    assertThat(PathPattern.of("/a*b").matches("/a*xb")).isTrue();
    assertThat(PathPattern.of("/a?c").matches("/a*c")).isTrue();
    assertThat(PathPattern.of("/a*").matches("/b*")).isFalse();
  }

  @Test
  void matches_questionMarkAgainstACharacterOutsideTheBasicPlane_takesItAsOneOrTwoChars() {
    String grin = new String(Character.toChars(0x1F600)); // two chars, one code point
    // An AntPathMatcher's segment, or a PathPatternParser's with a '*', is a regular expression
    // whose '.' takes the code point...
    assertThat(PathPattern.of("/v?/items").matches("/v" + grin + "/items")).isTrue();
    assertThat(PathPattern.of("/v?*").matches("/v" + grin)).isTrue();
    assertThat(PathPattern.of("/a?b*").matches("/a" + grin + "b")).isTrue();
    // ...and a PathPatternParser's segment of literals and '?' counts chars.
    assertThat(PathPattern.of("/??").matches("/" + grin)).isTrue();
    assertThat(PathPattern.of("/???").matches("/" + grin)).isFalse();
    assertThat(PathPattern.of("/v?").ignoringCase().matches("/V" + grin)).isTrue();
  }

  @Test
  void matches_lastStarAfterATrailingSlash_matchesTheEmptySegment() {
    // Handlers' '/files/*' serves '/files/', and '/*' serves '/'.
    assertThat(PathPattern.of("/files/*").matches("/files/")).isTrue();
    assertThat(PathPattern.of("/*").matches("/")).isTrue();
    assertThat(PathPattern.of("/files/*").matches("/files")).isFalse();
    assertThat(PathPattern.of("/files/*.json").matches("/files/")).isFalse();
    assertThat(PathPattern.of("/files/{name}").matches("/files/")).isFalse();
    assertThat(PathPattern.of("/files/*/x").matches("/files//x")).isFalse();
  }

  @Test
  void matches_variable_matchesOneWholeSegment() {
    PathPattern p = PathPattern.of("/orders/{id}/items");
    assertThat(p.matches("/orders/42/items")).isTrue();
    assertThat(p.matches("/orders/items")).isFalse();
    assertThat(p.matches("/orders/4/2/items")).isFalse();
  }

  @Test
  @Timeout(value = 5, unit = TimeUnit.SECONDS, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
  void matches_manyDoubleStarsOnALongPath_isNotExponential() {
    // Trying every split point for each '**' would take about 400^4 / 24 steps here.
    PathPattern p = PathPattern.of("/**/a/**/a/**/a/**/b");
    String as = "/a".repeat(400);
    assertThat(p.matches(as)).isFalse();
    assertThat(p.matches(as + "/b")).isTrue();
    assertThat(p.matches("/a/a/b")).isFalse();
    assertThat(p.matches("/x/a/y/a/z/a/b")).isTrue();
  }

  @Test
  void of_invalidPattern_throwsNamingTheValue() {
    assertThatThrownBy(() -> PathPattern.of("v1/product"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("v1/product");
    assertThatThrownBy(() -> PathPattern.of(null)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> PathPattern.of("/a/**b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/a/**b");
    assertThatThrownBy(() -> PathPattern.of("/a/{id"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("/a/{id");
  }

  /** The same language as a regular expression over {@link #normalized}: an independent oracle. */
  private static Pattern oracle(String pattern) {
    StringBuilder regex = new StringBuilder();
    for (String segment : pattern.split("/", -1)) {
      if (segment.isEmpty()) {
        continue;
      }
      if (segment.equals("**")) {
        regex.append("(/[^/]+)*");
        continue;
      }
      regex.append('/');
      for (int i = 0; i < segment.length(); i++) {
        char c = segment.charAt(i);
        regex.append(c == '*' ? "[^/]*" : c == '?' ? "[^/]" : Pattern.quote(String.valueOf(c)));
      }
    }
    return Pattern.compile(regex.toString());
  }

  /** The path without empty segments, each segment preceded by '/'; the root is "". */
  private static String normalized(String path) {
    StringBuilder b = new StringBuilder();
    for (String segment : path.split("/", -1)) {
      if (!segment.isEmpty()) {
        b.append('/').append(segment);
      }
    }
    return b.toString();
  }

  /**
   * What the oracle says, with a last segment '*' also taking the empty segment after a trailing
   * slash.
   */
  private static boolean expected(String pattern, String path) {
    if (oracle(pattern).matcher(normalized(path)).matches()) {
      return true;
    }
    String segments = normalized(pattern); // the pattern's empty segments are ignored too
    return path.endsWith("/")
        && segments.endsWith("/*")
        && oracle(segments.substring(0, segments.length() - 2)).matcher(normalized(path)).matches();
  }

  private static String randomOf(Random random, String alphabet, int maxLength) {
    StringBuilder b = new StringBuilder();
    int n = random.nextInt(maxLength + 1);
    for (int i = 0; i < n; i++) {
      b.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return b.toString();
  }

  @Test
  void matches_randomPatternsAndPaths_agreeWithRegexOracle() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    int matched = 0;
    for (int i = 0; i < 20_000; i++) {
      StringBuilder pattern = new StringBuilder();
      int segments = 1 + random.nextInt(4);
      for (int s = 0; s < segments; s++) {
        pattern.append('/');
        // '**' inside a segment is rejected by design; a lone '*' run stays one segment.
        pattern.append(
            random.nextInt(5) == 0 ? "**" : randomOf(random, "ab*?", 3).replaceAll("\\*+", "*"));
      }
      String path = "/" + randomOf(random, "ab/*", 8);
      boolean expected = expected(pattern.toString(), path);
      assertThat(PathPattern.of(pattern.toString()).matches(path))
          .as("seed %d: pattern %s, path %s", seed, pattern, path)
          .isEqualTo(expected);
      matched += expected ? 1 : 0;
    }
    assertThat(matched).as("seed %d: the cases must include matches", seed).isGreaterThan(500);
  }
}
