package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The order of {@code @Path} templates that {@link LocatorCount} relies on: whether the runtime
 * surely prefers one template to another, on Jersey (literal characters, variables, variables with
 * a regular expression of their own) and on RESTEasy (the same without the variables) alike.
 */
class PathTemplateTest {

  static Stream<Arguments> orders() {
    return Stream.of(
        // this, other, this a resource method's, surely before
        Arguments.of("admin", "{token}", false, true),
        Arguments.of("{token}", "admin", false, false),
        Arguments.of("x{a}", "{b: x.*}", true, true),
        // equal literals: a regular expression of its own, on both runtimes
        Arguments.of("{token: (issued|guess).*}", "{other}", false, true),
        Arguments.of("{other}", "{token: (issued|guess).*}", false, false),
        // Jersey by variables, RESTEasy by own expressions: each may run, neither surely first
        Arguments.of("{owner}/{token}", "@{handle: .+}", false, false),
        Arguments.of("@{handle: .+}", "{owner}/{token}", false, false),
        Arguments.of("{owner}/{token}", "@{handle: .+}", true, false),
        Arguments.of("@{page: .+}", "{owner}/{token}", true, false),
        // more variables, no own expression on either side: RESTEasy ties, and there prefers a
        // resource method to a locator
        Arguments.of("{a}-{b}", "x{c}", false, false),
        Arguments.of("{a}-{b}", "x{c}", true, true),
        Arguments.of("x{c}", "{a}-{b}", true, false),
        // ties: between locators neither; a method first only on the locator's own template
        Arguments.of("{token}", "{name}", false, false),
        Arguments.of("{name}", "{token}", true, true),
        Arguments.of("{name}", "{token}/", true, true),
        Arguments.of("/{name}/", "{token}", true, true),
        Arguments.of("{a: [0-9]+}", "{b: [0-9]+}", true, true),
        Arguments.of("{a: [0-9]+}", "{b: [a-z]+}", true, false),
        Arguments.of("{name}", "{token: [a-z]+-[0-9]+}", true, false),
        Arguments.of("{token: [a-z]+-[0-9]+}", "{name}", true, true));
  }

  @ParameterizedTest(name = "{0} before {1} (method: {2}) = {3}")
  @MethodSource("orders")
  void before_onBothRuntimesAlike(String one, String other, boolean method, boolean before) {
    assertThat(PathTemplate.of(one).before(PathTemplate.of(other), method))
        .as("%s before %s (a method's: %s)", one, other, method)
        .isEqualTo(before);
  }

  @Test
  void before_isAStrictPartialOrderBetweenLocators() {
    List<PathTemplate> templates = new ArrayList<>();
    for (String path :
        List.of(
            "admin",
            "a{x}",
            "{token}",
            "{t: .+}",
            "{o}/{t}",
            "@{h: .+}",
            "{o}/{t: [0-9]+}",
            "x/y",
            "{a}-{b}",
            "{a: [a-z]+}-{b: [0-9]+}")) {
      templates.add(PathTemplate.of(path));
    }
    List<String> broken = new ArrayList<>();
    for (PathTemplate a : templates) {
      if (a.before(a, false)) {
        broken.add(a.pattern() + " before itself");
      }
      for (PathTemplate b : templates) {
        if (a.before(b, false) && b.before(a, false)) {
          broken.add(a.pattern() + " and " + b.pattern() + " each before the other");
        }
        for (PathTemplate c : templates) {
          if (a.before(b, false) && b.before(c, false) && !a.before(c, false)) {
            broken.add(a.pattern() + " < " + b.pattern() + " < " + c.pattern() + " not transitive");
          }
        }
      }
    }
    assertThat(broken).isEmpty();
  }

  @Test
  void of_countsLiteralsVariablesAndOwnExpressionsWithoutOuterSlashes() {
    assertThat(PathTemplate.of("/shares/{token}/"))
        .extracting(PathTemplate::literals, PathTemplate::variables, PathTemplate::ownRegex)
        .containsExactly(7, 1, 0);
    PathTemplate nested = PathTemplate.of("{year: [0-9]{4}}-{rest}");
    assertThat(nested)
        .extracting(PathTemplate::literals, PathTemplate::variables, PathTemplate::ownRegex)
        .containsExactly(1, 2, 1);
    assertThat(nested.pattern().matcher("2024-x").matches()).isTrue();
    assertThat(nested.pattern().matcher("24-x").matches()).isFalse();
    assertThat(PathTemplate.of("{bad: [}")).isNull();
  }
}
