package io.slidingwindow.jaxrs;

import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A {@code @Path} template as the runtime matches it, for {@link LocatorCount}: its pattern,
 * without outer slashes, and what ranks it among templates that take one path (literal characters,
 * variables, variables with a regular expression of their own).
 */
record PathTemplate(Pattern pattern, int literals, int variables, int ownRegex) {

  /**
   * Whether the runtime surely prefers this template to {@code other} where both take a path,
   * Jersey and RESTEasy alike. JAX-RS orders templates by more literal characters, then more
   * variables, then more variables with a regular expression of their own (Jersey); RESTEasy leaves
   * the variables out. Where the two orders disagree or tie, either template may be the one run.
   * With {@code method}, this is a resource method's template and {@code other} a locator's: the
   * method goes first where the orders tie, on Jersey only for the same template (it orders others
   * of one rank by their expressions).
   */
  boolean before(PathTemplate other, boolean method) {
    if (literals != other.literals) {
      return literals > other.literals;
    }
    int own = Integer.compare(ownRegex, other.ownRegex);
    int jaxrs = variables != other.variables ? Integer.compare(variables, other.variables) : own;
    return method
        ? own >= 0 && (jaxrs > 0 || jaxrs == 0 && pattern.pattern().equals(other.pattern.pattern()))
        : own > 0 && jaxrs > 0;
  }

  /**
   * The pattern that {@code path}, a {@code @Path} value, matches without its outer slashes: each
   * {@code {name}} one segment, each {@code {name: regex}} its regex; null if a regex is invalid.
   */
  static PathTemplate of(String path) {
    String text = strip(path);
    StringBuilder regex = new StringBuilder();
    int literals = 0;
    int variables = 0;
    int ownRegex = 0;
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (c != '{') {
        regex.append(Pattern.quote(String.valueOf(c)));
        literals++;
        i++;
        continue;
      }
      int depth = 1;
      int j = i + 1;
      while (j < text.length() && depth > 0) {
        char d = text.charAt(j++);
        depth += d == '{' ? 1 : d == '}' ? -1 : 0;
      }
      String inside = text.substring(i + 1, depth == 0 ? j - 1 : j);
      int colon = inside.indexOf(':');
      variables++;
      ownRegex += colon < 0 ? 0 : 1;
      regex
          .append('(')
          .append(colon < 0 ? "[^/]+" : inside.substring(colon + 1).trim())
          .append(')');
      i = j;
    }
    try {
      return new PathTemplate(Pattern.compile(regex.toString()), literals, variables, ownRegex);
    } catch (PatternSyntaxException e) {
      return null;
    }
  }

  /** {@code path} without its leading and trailing slashes. */
  static String strip(String path) {
    int from = 0;
    int to = path.length();
    while (from < to && path.charAt(from) == '/') {
      from++;
    }
    while (to > from && path.charAt(to - 1) == '/') {
      to--;
    }
    return path.substring(from, to);
  }
}
