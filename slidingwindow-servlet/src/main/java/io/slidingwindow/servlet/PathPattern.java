package io.slidingwindow.servlet;

import java.util.ArrayList;
import java.util.List;

/**
 * An Ant-style path pattern, such as {@code /v1/product/**} or {@code /orders/{id}/items}.
 *
 * <p>A pattern is a sequence of segments separated by {@code /}. A segment {@code **} matches zero
 * or more whole path segments. Within any other segment, {@code *} matches zero or more characters
 * and {@code ?} exactly one, never a {@code /}; {@code {name}} matches one whole segment (as
 * {@code *} does, the name is only a label). Everything else matches itself, case-sensitively.
 * Empty segments are ignored on both sides, so {@code //a/} is the path {@code /a}: a trailing or
 * doubled slash cannot slip a request past a rule.
 *
 * <p>Matching runs in {@code O(pattern segments x path segments)} time per {@code **} and
 * allocates the path's segments. Instances are immutable and thread-safe.
 */
public final class PathPattern {

  private final String pattern;
  private final String[] segments;

  private PathPattern(String pattern, String[] segments) {
    this.pattern = pattern;
    this.segments = segments;
  }

  /**
   * Parses {@code pattern}.
   *
   * @throws IllegalArgumentException if {@code pattern} is null, does not start with {@code /}, or
   *     has a segment that mixes {@code **} with other characters, or an unclosed {@code {}
   */
  public static PathPattern of(String pattern) {
    if (pattern == null || !pattern.startsWith("/")) {
      throw new IllegalArgumentException("pattern must start with '/', was " + pattern);
    }
    String[] segments = split(pattern);
    for (String segment : segments) {
      if (segment.contains("**") && !segment.equals("**")) {
        throw new IllegalArgumentException(
            "pattern: '**' must be a whole segment, was " + pattern);
      }
      if (segment.startsWith("{") != segment.endsWith("}")
          || (segment.startsWith("{") && segment.length() < 3)) {
        throw new IllegalArgumentException(
            "pattern: a variable segment must be '{name}', was " + pattern);
      }
    }
    return new PathPattern(pattern, segments);
  }

  /** Whether {@code path} (starting with {@code /}, decoded, without query) matches. */
  public boolean matches(String path) {
    if (path == null) {
      return false;
    }
    return matchSegments(segments, 0, split(path), 0);
  }

  private static boolean matchSegments(String[] pattern, int pi, String[] path, int si) {
    while (pi < pattern.length) {
      String p = pattern[pi];
      if (p.equals("**")) {
        // Collapse consecutive '**', then try every split point of the remaining path.
        while (pi + 1 < pattern.length && pattern[pi + 1].equals("**")) {
          pi++;
        }
        if (pi + 1 == pattern.length) {
          return true;
        }
        for (int k = si; k <= path.length; k++) {
          if (matchSegments(pattern, pi + 1, path, k)) {
            return true;
          }
        }
        return false;
      }
      if (si >= path.length || !matchSegment(p, path[si])) {
        return false;
      }
      pi++;
      si++;
    }
    return si == path.length;
  }

  /** Glob match of one segment: '*' any run, '?' one character, '{name}' the whole segment. */
  static boolean matchSegment(String pattern, String segment) {
    if (pattern.startsWith("{")) {
      return true;
    }
    int p = 0;
    int s = 0;
    int starP = -1;
    int starS = 0;
    while (s < segment.length()) {
      if (p < pattern.length()
          && (pattern.charAt(p) == '?' || pattern.charAt(p) == segment.charAt(s))) {
        p++;
        s++;
      } else if (p < pattern.length() && pattern.charAt(p) == '*') {
        starP = p++;
        starS = s;
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

  private static String[] split(String path) {
    List<String> parts = new ArrayList<>();
    for (String part : path.split("/")) {
      if (!part.isEmpty()) {
        parts.add(part);
      }
    }
    return parts.toArray(new String[0]);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PathPattern && ((PathPattern) o).pattern.equals(pattern);
  }

  @Override
  public int hashCode() {
    return pattern.hashCode();
  }

  /** The pattern as written. */
  @Override
  public String toString() {
    return pattern;
  }
}
