package io.slidingwindow.http;

import java.util.ArrayList;
import java.util.List;

/**
 * An Ant-style path pattern, such as {@code /v1/product/**} or {@code /orders/{id}/items}.
 *
 * <p>A pattern is a sequence of segments separated by {@code /}. A segment {@code **} matches zero
 * or more whole path segments. Within any other segment, {@code *} matches zero or more characters
 * and {@code ?} exactly one, never a {@code /}; {@code {name}} matches one whole segment (as {@code
 * *} does, the name is only a label). Everything else matches itself, case-sensitively. Empty
 * segments are ignored on both sides, so {@code //a/} is the path {@code /a}: a trailing or doubled
 * slash cannot slip a request past a rule.
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

  private PathPattern(String pattern, String[] segments) {
    this.pattern = pattern;
    this.segments = segments;
    this.anySegments = new boolean[segments.length];
    for (int i = 0; i < segments.length; i++) {
      anySegments[i] = segments[i].equals("**");
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
    return new PathPattern(pattern, segments);
  }

  /** Whether {@code path} (starting with {@code /}, decoded, without query) matches. */
  public boolean matches(String path) {
    if (path == null) {
      return false;
    }
    return matchSegments(split(path));
  }

  /**
   * Matches the path's segments with one pass and one backtracking point: the last {@code **} seen
   * and the path segment it was last extended to.
   */
  private boolean matchSegments(String[] path) {
    int p = 0;
    int s = 0;
    int anyP = -1;
    int anyS = 0;
    while (s < path.length) {
      if (p < segments.length && anySegments[p]) {
        anyP = p++;
        anyS = s;
      } else if (p < segments.length && matchSegment(segments[p], path[s])) {
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
    return p == segments.length;
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
      // The pattern's '*' first: a '*' in the path is a character like any other.
      if (p < pattern.length() && pattern.charAt(p) == '*') {
        starP = p++;
        starS = s;
      } else if (p < pattern.length()
          && (pattern.charAt(p) == '?' || pattern.charAt(p) == segment.charAt(s))) {
        p++;
        s++;
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
    for (String part : path.split("/", -1)) {
      if (!part.isEmpty()) {
        parts.add(part);
      }
    }
    return parts.toArray(new String[0]);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PathPattern other && other.pattern.equals(pattern);
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
