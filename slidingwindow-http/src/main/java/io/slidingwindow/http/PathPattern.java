package io.slidingwindow.http;

import java.util.ArrayList;
import java.util.List;

/**
 * An Ant-style path pattern, such as {@code /v1/product/**} or {@code /orders/{id}/items}.
 *
 * <p>A pattern is a sequence of segments separated by {@code /}. A segment {@code **} matches zero
 * or more whole path segments. Within any other segment, {@code *} matches zero or more characters
 * and {@code ?} exactly one, never a {@code /}; {@code {name}} matches one whole segment (as {@code
 * *} does, the name is only a label). Everything else matches itself, case-sensitively unless the
 * pattern {@linkplain #ignoringCase() ignores case}. Empty segments are ignored on both sides, so
 * {@code //a/} is the path {@code /a}: a trailing or doubled slash cannot slip a request past a
 * rule; and a last segment {@code *} also matches the empty segment after a trailing slash, as
 * handlers' patterns do ({@code /files/*} matches {@code /files/}).
 *
 * <p>A pattern that ignores case takes a character of the path for the pattern's when it is the
 * same character, or has the same upper case, the same lower case, or the same lower case of its
 * upper case; a surrogate pair facing a surrogate pair is compared as one code point. So {@code
 * /admin} also matches {@code /ADMIN}, and {@code /admin} with a dotless i (U+0131) for the {@code
 * i}; {@code /key} matches the path with a Kelvin sign (U+212A) for the {@code k}: whatever a path
 * matcher that ignores case by {@code String.equalsIgnoreCase}, by lower-casing or by ASCII folding
 * takes as equal, this takes as equal too, so a rule reaches every request that such a handler
 * reaches. Characters are compared one by one: a mapping of one character to several (the sharp s,
 * U+00DF, upper-cased is {@code SS}) is not followed, as neither of Spring's path matchers follows
 * it.
 *
 * <p>Matching runs in {@code O(pattern segments x path segments)} segment comparisons at worst,
 * however many {@code **} the pattern holds: the segments are matched as a glob is matched against
 * characters, going back only to the most recent {@code **} (an earlier one never needs to take
 * more, since the later one can absorb whatever it would). It allocates the path's segments.
 * Instances are immutable and thread-safe.
 */
public final class PathPattern {

  private final String pattern;
  private final String[] segments;
  private final boolean[] anySegments;
  private final boolean[] questionSegments;
  private final boolean ignoreCase;

  private PathPattern(String pattern, String[] segments, boolean ignoreCase) {
    this.pattern = pattern;
    this.segments = segments;
    this.ignoreCase = ignoreCase;
    this.anySegments = new boolean[segments.length];
    this.questionSegments = new boolean[segments.length];
    for (int i = 0; i < segments.length; i++) {
      anySegments[i] = segments[i].equals("**");
      questionSegments[i] = segments[i].indexOf('?') >= 0;
    }
  }

  /**
   * Parses {@code pattern}.
   *
   * @throws IllegalArgumentException if {@code pattern} is null, does not start with {@code /}, or
   *     has a segment that mixes {@code **} with other characters, or an unclosed <code>{</code>
   */
  public static PathPattern of(String pattern) {
    if (pattern == null || !pattern.startsWith("/")) {
      throw new IllegalArgumentException("pattern must start with '/', was " + pattern);
    }
    String[] segments = split(pattern);
    for (String segment : segments) {
      if (segment.contains("**") && !segment.equals("**")) {
        throw new IllegalArgumentException("pattern: '**' must be a whole segment, was " + pattern);
      }
      if (segment.startsWith("{") != segment.endsWith("}")
          || (segment.startsWith("{") && segment.length() < 3)) {
        throw new IllegalArgumentException(
            "pattern: a variable segment must be '{name}', was " + pattern);
      }
    }
    return new PathPattern(pattern, segments, false);
  }

  /**
   * This pattern matching regardless of case (see the class description); this very pattern if it
   * already does. The two are not {@linkplain #equals equal}: a pattern that ignores case differs
   * from the same text matched case-sensitively.
   */
  public PathPattern ignoringCase() {
    return ignoreCase ? this : new PathPattern(pattern, segments, true);
  }

  /** Whether this pattern matches regardless of case. */
  public boolean ignoresCase() {
    return ignoreCase;
  }

  /** Whether {@code path} (starting with {@code /}, decoded, without query) matches. */
  public boolean matches(String path) {
    if (path == null) {
      return false;
    }
    return matchSegments(split(path), path.endsWith("/"));
  }

  /**
   * Matches the path's segments with one pass and one backtracking point: the last {@code **} seen
   * and the path segment it was last extended to.
   */
  private boolean matchSegments(String[] path, boolean trailingSlash) {
    int p = 0;
    int s = 0;
    int anyP = -1;
    int anyS = 0;
    while (s < path.length) {
      if (p < segments.length && anySegments[p]) {
        anyP = p++;
        anyS = s;
      } else if (p < segments.length && segmentMatches(p, path[s])) {
        p++;
        s++;
      } else if (anyP >= 0) {
        p = anyP + 1;
        s = ++anyS;
      } else {
        return false;
      }
    }
    while (p < segments.length && anySegments[p]) {
      p++;
    }
    // A last '*' also takes the empty segment after a trailing slash, as handlers' '*' does.
    if (trailingSlash && p == segments.length - 1 && segments[p].equals("*")) {
      p++;
    }
    return p == segments.length;
  }

  /**
   * Whether pattern segment {@code p} matches {@code segment}. A {@code ?} is tried as one char,
   * and, if the segment holds a surrogate pair, also as one code point: handlers read it either way
   * (a path pattern segment of literals and {@code ?} counts chars; an Ant matcher's segment, or a
   * path pattern segment with a {@code *}, is a regular expression whose {@code .} takes a code
   * point), and the rule must match whatever either does.
   */
  private boolean segmentMatches(int p, String segment) {
    return glob(segments[p], segment, ignoreCase, false)
        || (questionSegments[p]
            && hasSurrogatePair(segment)
            && glob(segments[p], segment, ignoreCase, true));
  }

  /**
   * Glob match of one segment: '*' any run, '?' one character, '{name}' the whole segment.
   *
   * @param ignoreCase whether characters match regardless of case ({@link #same})
   * @param codePoints whether '?' takes a surrogate pair whole rather than one char of it
   */
  static boolean glob(String pattern, String segment, boolean ignoreCase, boolean codePoints) {
    if (pattern.startsWith("{")) {
      return true;
    }
    int p = 0;
    int s = 0;
    int starP = -1;
    int starS = 0;
    while (s < segment.length()) {
      // The pattern's '*' first: a '*' in the path is a character like any other.
      int same = 0;
      if (p < pattern.length() && pattern.charAt(p) == '*') {
        starP = p++;
        starS = s;
        continue;
      }
      if (p < pattern.length() && pattern.charAt(p) == '?') {
        p++;
        s +=
            codePoints && Character.isSurrogatePair(segment.charAt(s), charAt(segment, s + 1))
                ? 2
                : 1;
        continue;
      }
      if (p < pattern.length()) {
        same = same(pattern, p, segment, s, ignoreCase);
      }
      if (same > 0) {
        p += same;
        s += same;
      } else if (starP >= 0) {
        p = starP + 1;
        s = ++starS;
      } else {
        return false;
      }
    }
    while (p < pattern.length() && pattern.charAt(p) == '*') {
      p++;
    }
    return p == pattern.length();
  }

  /** The char at {@code i}, or 0 past the end. */
  private static char charAt(String s, int i) {
    return i < s.length() ? s.charAt(i) : 0;
  }

  private static boolean hasSurrogatePair(String segment) {
    for (int i = 0; i + 1 < segment.length(); i++) {
      if (Character.isSurrogatePair(segment.charAt(i), segment.charAt(i + 1))) {
        return true;
      }
    }
    return false;
  }

  /**
   * How many chars match at {@code pattern[p]} and {@code segment[s]}: 1 for equal chars, 0 for
   * different ones; regardless of case, 2 for surrogate pairs on both sides that are one code point
   * regardless of case ({@link #sameIgnoringCase(int, int)}) and 1 for chars that are.
   */
  private static int same(String pattern, int p, String segment, int s, boolean ignoreCase) {
    char a = pattern.charAt(p);
    char b = segment.charAt(s);
    if (!ignoreCase) {
      return a == b ? 1 : 0;
    }
    if (Character.isSurrogatePair(a, charAt(pattern, p + 1))
        && Character.isSurrogatePair(b, charAt(segment, s + 1))) {
      return sameIgnoringCase(pattern.codePointAt(p), segment.codePointAt(s)) ? 2 : 0;
    }
    return sameIgnoringCase(a, b) ? 1 : 0;
  }

  /**
   * Whether two code points are one regardless of case: equal, or with the same upper case, the
   * same lower case, or the same lower case of their upper case. Every pair that {@code
   * String.equalsIgnoreCase}, a comparison of lower cases or an ASCII folding takes as equal is.
   */
  static boolean sameIgnoringCase(int a, int b) {
    if (a == b) {
      return true;
    }
    int upperA = Character.toUpperCase(a);
    int upperB = Character.toUpperCase(b);
    return upperA == upperB
        || Character.toLowerCase(a) == Character.toLowerCase(b)
        || Character.toLowerCase(upperA) == Character.toLowerCase(upperB);
  }

  private static String[] split(String path) {
    List<String> parts = new ArrayList<>();
    for (String part : path.split("/", -1)) {
      if (!part.isEmpty()) {
        parts.add(part);
      }
    }
    return parts.toArray(new String[0]);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PathPattern other
        && other.pattern.equals(pattern)
        && other.ignoreCase == ignoreCase;
  }

  @Override
  public int hashCode() {
    return pattern.hashCode() * 31 + (ignoreCase ? 1 : 0);
  }

  /** The pattern as written (whether or not it ignores case). */
  @Override
  public String toString() {
    return pattern;
  }
}
