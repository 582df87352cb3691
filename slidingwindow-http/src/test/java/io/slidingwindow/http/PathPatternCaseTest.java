package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/** Path patterns and rules that match regardless of case, as handlers that ignore case do. */
class PathPatternCaseTest {

  @Test
  void ignoringCase_literal_matchesEveryCasing() {
    PathPattern p = PathPattern.of("/v1/admin").ignoringCase();
    assertThat(p.matches("/v1/admin")).isTrue();
    assertThat(p.matches("/V1/ADMIN")).isTrue();
    assertThat(p.matches("/v1/Admin")).isTrue();
    assertThat(p.matches("//V1//aDmIn/")).isTrue();
    assertThat(p.matches("/v1/admins")).isFalse();
    assertThat(p.matches("/v2/admin")).isFalse();
    assertThat(p.matches("/v1/adm")).isFalse();
    assertThat(p.matches(null)).isFalse();
  }

  @Test
  void ignoringCase_wildcardsAndVariables_matchEveryCasing() {
    assertThat(PathPattern.of("/v1/product/**").ignoringCase().matches("/V1/PRODUCT/7/X")).isTrue();
    assertThat(PathPattern.of("/api/**/edit").ignoringCase().matches("/API/a/B/EDIT")).isTrue();
    assertThat(PathPattern.of("/files/*.json").ignoringCase().matches("/FILES/a.JSON")).isTrue();
    assertThat(PathPattern.of("/files/*.json").ignoringCase().matches("/FILES/*x.JSON")).isTrue();
    assertThat(PathPattern.of("/files/*.json").ignoringCase().matches("/files/a/b.json")).isFalse();
    assertThat(PathPattern.of("/v?/items").ignoringCase().matches("/Vx/ITEMS")).isTrue();
    assertThat(PathPattern.of("/v?/items").ignoringCase().matches("/V12/ITEMS")).isFalse();
    assertThat(PathPattern.of("/orders/{id}/items").ignoringCase().matches("/ORDERS/a/Items"))
        .isTrue();
  }

  @Test
  void ignoringCase_charactersThatJavaFoldsTogether_matchAsTheHandlerDoes() {
    // String.equalsIgnoreCase, which a case-insensitive literal segment uses, takes these as
    // the ASCII letter: a dotless i, a dotted capital I, a long s, the Kelvin sign.
    PathPattern admin = PathPattern.of("/admin").ignoringCase();
    assertThat("admin".equalsIgnoreCase("adm\u0131n")).isTrue();
    assertThat(admin.matches("/adm\u0131n")).isTrue();
    assertThat(admin.matches("/adm\u0130n")).isTrue();
    assertThat(PathPattern.of("/s").ignoringCase().matches("/\u017f")).isTrue();
    assertThat(PathPattern.of("/key").ignoringCase().matches("/\u212aey")).isTrue();
    assertThat(PathPattern.of("/k?y").ignoringCase().matches("/\u212aey")).isTrue();
    // A surrogate pair is one letter: DESERET CAPITAL LONG I and its small letter.
    assertThat(PathPattern.of("/\ud801\udc00").ignoringCase().matches("/\ud801\udc28")).isTrue();
    assertThat(PathPattern.of("/\ud801\udc00").ignoringCase().matches("/\ud801\udc29")).isFalse();
    assertThat(PathPattern.of("/admin").matches("/adm\u0131n")).isFalse();
  }

  @Test
  void of_matchesCaseSensitively_asBefore() {
    PathPattern p = PathPattern.of("/v1/admin");
    assertThat(p.ignoresCase()).isFalse();
    assertThat(p.matches("/V1/ADMIN")).isFalse();
    assertThat(p.ignoringCase().ignoresCase()).isTrue();
    PathPattern q = p.ignoringCase();
    assertThat(q.ignoringCase()).isSameAs(q);
    assertThat(p.ignoringCase())
        .isNotEqualTo(p)
        .isEqualTo(PathPattern.of("/v1/admin").ignoringCase());
    assertThat(p.ignoringCase()).hasToString("/v1/admin");
  }

  @Test
  void httpRule_ignoreCase_appliesToEveryPathWhenever_added() {
    HttpRule rule =
        HttpRule.builder("admin")
            .path("/v1/admin")
            .ignoreCase(true)
            .path("/v1/users/**")
            .limit(Limit.of(1, Duration.ofSeconds(1)))
            .build();
    assertThat(rule.ignoreCase()).isTrue();
    assertThat(rule.paths()).allMatch(PathPattern::ignoresCase);
    assertThat(rule.matches("GET", "/V1/ADMIN")).isTrue();
    assertThat(rule.matches("GET", "/v1/USERS/7")).isTrue();
    assertThat(rule.matches("GET", "/v1/other")).isFalse();
    assertThat(rule.toString()).contains("ignoring case");

    HttpRule sensitive =
        HttpRule.builder("admin")
            .path("/v1/admin")
            .limit(Limit.of(1, Duration.ofSeconds(1)))
            .build();
    assertThat(sensitive.ignoreCase()).isFalse();
    assertThat(sensitive.matches("GET", "/V1/ADMIN")).isFalse();
    assertThat(sensitive.toString()).doesNotContain("ignoring case");
  }

  /** Letters of patterns and paths; the oracle below is exact for ASCII letters. */
  private static final String LETTERS = "aAbB";

  @Provide
  Arbitrary<String> patterns() {
    Arbitrary<String> segment =
        Arbitraries.oneOf(
            Arbitraries.just("**"),
            Arbitraries.just("{id}"),
            Arbitraries.strings()
                .withChars((LETTERS + "*?").toCharArray())
                .ofMinLength(1)
                .ofMaxLength(4)
                .map(s -> s.replaceAll("\\*+", "*")));
    return segment.list().ofMinSize(1).ofMaxSize(4).map(list -> "/" + String.join("/", list));
  }

  @Provide
  Arbitrary<String> paths() {
    return Arbitraries.strings()
        .withChars((LETTERS + "*/").toCharArray())
        .ofMaxLength(10)
        .map(s -> "/" + s);
  }

  /**
   * The pattern as a regular expression over the path without empty segments (a last '*' after a
   * trailing slash is tried apart).
   */
  private static Pattern oracle(String pattern) {
    StringBuilder regex = new StringBuilder();
    for (String segment : pattern.split("/", -1)) {
      if (segment.isEmpty()) {
        continue;
      }
      if (segment.equals("**")) {
        regex.append("(/[^/]+)*");
      } else if (segment.startsWith("{")) {
        regex.append("/[^/]+");
      } else {
        regex.append('/');
        for (int i = 0; i < segment.length(); i++) {
          char c = segment.charAt(i);
          regex.append(c == '*' ? "[^/]*" : c == '?' ? "[^/]" : Pattern.quote(String.valueOf(c)));
        }
      }
    }
    return Pattern.compile(regex.toString(), Pattern.CASE_INSENSITIVE);
  }

  private static String withoutEmptySegments(String path) {
    StringBuilder b = new StringBuilder();
    for (String segment : path.split("/", -1)) {
      if (!segment.isEmpty()) {
        b.append('/').append(segment);
      }
    }
    return b.toString();
  }

  @Property(tries = 3000)
  void ignoringCase_agreesWithACaseInsensitiveRegex(
      @ForAll("patterns") String pattern, @ForAll("paths") String path) {
    assertThat(PathPattern.of(pattern).ignoringCase().matches(path))
        .as("%s against %s", pattern, path)
        .isEqualTo(
            oracle(pattern).matcher(withoutEmptySegments(path)).matches()
                || (path.endsWith("/")
                    && pattern.endsWith("/*")
                    && oracle(pattern.substring(0, pattern.length() - 2))
                        .matcher(withoutEmptySegments(path))
                        .matches()));
  }

  @Property(tries = 3000)
  void ignoringCase_matchesEverythingTheCaseSensitivePatternMatches(
      @ForAll("patterns") String pattern, @ForAll("paths") String path) {
    if (PathPattern.of(pattern).matches(path)) {
      assertThat(PathPattern.of(pattern).ignoringCase().matches(path)).isTrue();
    }
  }

  /** Each letter and the characters a case-insensitive comparison in Java takes for it. */
  private static final Map<Character, String> SPELLINGS =
      Map.of(
          'i', "iI\u0131\u0130",
          'k', "kK\u212a",
          's', "sS\u017f",
          'a', "aA",
          'd', "dD",
          'm', "mM",
          'n', "nN");

  private static Arbitrary<String> spellingsOf(char c) {
    String spellings = SPELLINGS.getOrDefault(c, String.valueOf(c));
    return Arbitraries.of(spellings.chars().mapToObj(x -> String.valueOf((char) x)).toList());
  }

  @Provide
  Arbitrary<List<String>> respelled() {
    Arbitrary<String> word =
        Arbitraries.strings().withChars("ikadmns".toCharArray()).ofMinLength(1).ofMaxLength(6);
    return word.list()
        .ofMinSize(1)
        .ofMaxSize(3)
        .flatMap(
            words -> {
              String literal = "/" + String.join("/", words);
              Arbitrary<String> spelled =
                  Combinators.combine(literal.chars().mapToObj(c -> spellingsOf((char) c)).toList())
                      .as(parts -> String.join("", parts));
              return spelled.map(s -> List.of(literal, s));
            });
  }

  @Property(tries = 2000)
  void ignoringCase_literal_matchesEveryRespellingThatEqualsIgnoreCaseAccepts(
      @ForAll("respelled") List<String> literalAndSpelling) {
    String literal = literalAndSpelling.get(0);
    String spelled = literalAndSpelling.get(1);
    // What a handler's case-insensitive literal segments take as equal, segment by segment.
    assertThat(literal.equalsIgnoreCase(spelled)).as("%s and %s", literal, spelled).isTrue();
    assertThat(PathPattern.of(literal).ignoringCase().matches(spelled))
        .as("%s against %s", literal, spelled)
        .isTrue();
  }
}
