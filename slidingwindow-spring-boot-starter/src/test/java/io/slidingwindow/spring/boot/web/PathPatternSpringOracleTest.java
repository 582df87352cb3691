package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.http.PathPattern;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.springframework.http.server.PathContainer;
import org.springframework.util.AntPathMatcher;
import org.springframework.web.util.pattern.PathPatternParser;
import org.springframework.web.util.pattern.PatternParseException;

/**
 * Whatever Spring's path matchers match, a rule's pattern matches too: Spring MVC's and WebFlux's
 * {@code PathPatternParser} and MVC's {@code AntPathMatcher}, each case-sensitive and ignoring
 * case, against the project's {@link PathPattern} as it is and {@linkplain
 * PathPattern#ignoringCase() ignoring case}, on patterns and paths made of letters that Java folds
 * together (a dotless i, a dotted capital I, the Kelvin sign, a long s, letters outside the basic
 * plane), {@code *} and {@code ?}. A rule that matched less would let a request reach a handler
 * without counting it.
 */
class PathPatternSpringOracleTest {

  /** Letters, some of which case-insensitive comparisons take for others; two are char pairs. */
  private static final List<String> LETTERS =
      List.of(
          "a",
          "A",
          "i",
          "I",
          "\u0131",
          "\u0130",
          "k",
          "K",
          "\u212a",
          "s",
          "S",
          "\u017f",
          "\ud801\udc00",
          "\ud801\udc28",
          "\ud83d\ude00");

  private static PathPatternParser parser(boolean caseSensitive) {
    PathPatternParser parser = new PathPatternParser();
    parser.setCaseSensitive(caseSensitive);
    return parser;
  }

  private static AntPathMatcher ant(boolean caseSensitive) {
    AntPathMatcher matcher = new AntPathMatcher();
    matcher.setCaseSensitive(caseSensitive);
    return matcher;
  }

  private static final PathPatternParser PARSER = parser(true);
  private static final PathPatternParser PARSER_IGNORING_CASE = parser(false);
  private static final AntPathMatcher ANT = ant(true);
  private static final AntPathMatcher ANT_IGNORING_CASE = ant(false);

  @Provide
  Arbitrary<String> patterns() {
    List<String> units = new java.util.ArrayList<>(LETTERS);
    units.addAll(List.of("*", "?", "?"));
    Arbitrary<String> segment =
        Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(1, Arbitraries.just("**")),
            net.jqwik.api.Tuple.of(1, Arbitraries.just("{id}")),
            net.jqwik.api.Tuple.of(
                8,
                Arbitraries.of(units)
                    .list()
                    .ofMinSize(1)
                    .ofMaxSize(3)
                    .map(list -> String.join("", list).replaceAll("\\*+", "*"))));
    return segment.list().ofMinSize(1).ofMaxSize(3).map(list -> "/" + String.join("/", list));
  }

  @Provide
  Arbitrary<String> paths() {
    List<String> units = new java.util.ArrayList<>(LETTERS);
    units.addAll(List.of("*", "/", "/"));
    return Arbitraries.of(units).list().ofMaxSize(7).map(list -> "/" + String.join("", list));
  }

  /** Whether Spring's parser matches, or null if it refuses the pattern. */
  private static Boolean springMatches(PathPatternParser parser, String pattern, String path) {
    try {
      return parser.parse(pattern).matches(PathContainer.parsePath(path));
    } catch (PatternParseException e) {
      return null; // '**' before the end, say
    }
  }

  private static void assertCovers(
      String matcher, boolean theirs, boolean ours, String pattern, String path) {
    Statistics.label(matcher).collect(theirs);
    Statistics.label(matcher)
        .coverage(coverage -> coverage.check(true).percentage(percent -> percent > 3));
    if (theirs) {
      assertThat(ours)
          .as("%s matches %s against %s; so must the rule", matcher, pattern, path)
          .isTrue();
    }
  }

  @Property(tries = 4000)
  void caseSensitive_patternMatchesWhateverSpringMatches(
      @ForAll("patterns") String pattern, @ForAll("paths") String path) {
    boolean ours = PathPattern.of(pattern).matches(path);
    Boolean parsed = springMatches(PARSER, pattern, path);
    if (parsed != null) {
      assertCovers("PathPatternParser", parsed, ours, pattern, path);
    }
    assertCovers("AntPathMatcher", ANT.match(pattern, path), ours, pattern, path);
  }

  @Property(tries = 4000)
  void ignoringCase_patternMatchesWhateverSpringIgnoringCaseMatches(
      @ForAll("patterns") String pattern, @ForAll("paths") String path) {
    boolean ours = PathPattern.of(pattern).ignoringCase().matches(path);
    Boolean parsed = springMatches(PARSER_IGNORING_CASE, pattern, path);
    if (parsed != null) {
      assertCovers("PathPatternParser ignoring case", parsed, ours, pattern, path);
    }
    assertCovers(
        "AntPathMatcher ignoring case",
        ANT_IGNORING_CASE.match(pattern, path),
        ours,
        pattern,
        path);
  }
}
