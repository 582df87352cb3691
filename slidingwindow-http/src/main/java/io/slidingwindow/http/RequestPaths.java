package io.slidingwindow.http;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The readings of one request path that a rule must match, from plain strings, so that a rule
 * covers a request however its path is spelled.
 *
 * <p>A web server and the framework behind it may read the same request-target differently: a
 * servlet container resolves {@code ..} and drops {@code ;jsessionid=x} before it picks a servlet,
 * while Spring MVC's path patterns split the raw path on {@code /}, drop each segment's path
 * parameters, decode each segment once and keep {@code ..} as a segment value, so {@code GET
 * /v1/product/..;} reaches {@code /v1/product/{id}} with {@code id} bound to {@code ..}. A rule
 * matched against one reading only can be stepped around by a spelling that the other reading puts
 * under the rule's paths. So a rule applies when its patterns match any of:
 *
 * <ol>
 *   <li>the container's path within the application (decoded and normalized by the container);
 *   <li>the {@linkplain #dispatcherReading dispatcher reading} of the raw request URI less the
 *       context path: path parameters dropped, percent-decoded once, backslashes read as slashes,
 *       slashes collapsed, dot segments kept as they are;
 *   <li>the {@linkplain #normalizedReading normalized reading}: the dispatcher reading with its dot
 *       segments resolved;
 *   <li>if the raw path holds {@code %3B}, the last two readings of it with {@code %3B} decoded
 *       first, as a backend that decodes before it drops path parameters reads it: {@code
 *       /api/login%3Bx=1} is {@code /api/login} to it.
 * </ol>
 *
 * <p>Under a context path other than the root, the last two are taken for each way of stripping it:
 * the literal context path, and every raw prefix that reads as it ({@code /%61pp/} or {@code
 * /app/../app/} for {@code /app}).
 *
 * <p>A reading that no dispatcher acts on only makes a rule apply more often, never less: an odd
 * spelling can be counted by a rule whose handler it does not reach, which is the safe side. {@link
 * PathFirewall} refuses such spellings outright.
 *
 * <p>Cost: a plain path (no {@code %}, {@code ;}, backslash, {@code //} or dot segment) is read in
 * one pass without copying, and has one reading when the container agrees with it.
 *
 * <p>Nothing here depends on a web stack: a servlet filter, a reactive filter and a gateway pass
 * the strings they have. Stateless and thread-safe.
 */
public final class RequestPaths {

  private RequestPaths() {}

  /**
   * The distinct paths a rule is matched against, the container's first.
   *
   * @param containerPath the container's decoded, normalized path within the application (for a
   *     servlet, the servlet path plus the path info); null if unknown
   * @param requestUri the raw request URI as received: not decoded, without the query; an
   *     absolute-form target ({@code http://host/path}) is reduced to its path; null if unknown
   * @param contextPath the raw context path the request URI starts with, empty or null for the root
   * @return the container's path and two readings of each way to strip the context path from the
   *     raw URI (one way for the root context), each starting with {@code /}, without repeats; just
   *     {@code /} if nothing is known
   */
  public static List<String> readings(String containerPath, String requestUri, String contextPath) {
    List<String> paths = new ArrayList<>(3);
    if (containerPath != null) {
      paths.add(containerPath.isEmpty() ? "/" : containerPath);
    }
    if (requestUri != null) {
      for (String raw : withinContext(pathOfTarget(requestUri), contextPath)) {
        String dispatcher = dispatcherReading(raw);
        addDistinct(paths, dispatcher);
        addDistinct(paths, resolveDots(dispatcher));
        if (hasEncodedSeparator(raw)) {
          addDistinct(paths, segmentReading(raw));
        }
        String semicolons = decodedSemicolons(raw);
        if (semicolons != raw) {
          String decodedFirst = dispatcherReading(semicolons);
          addDistinct(paths, decodedFirst);
          addDistinct(paths, resolveDots(decodedFirst));
        }
      }
    }
    if (paths.isEmpty()) {
      paths.add("/");
    }
    return paths;
  }

  /**
   * The path of a request-target: an absolute-form target ({@code scheme://authority/path}) loses
   * its scheme and authority, and any query or fragment is dropped.
   */
  static String pathOfTarget(String target) {
    String path = target;
    int scheme = path.indexOf("://");
    if (scheme > 0 && path.indexOf('/') == scheme + 1) {
      int slash = path.indexOf('/', scheme + 3);
      path = slash < 0 ? "/" : path.substring(slash);
    }
    int end = path.length();
    int query = path.indexOf('?');
    if (query >= 0) {
      end = query;
    }
    int fragment = path.indexOf('#');
    if (fragment >= 0 && fragment < end) {
      end = fragment;
    }
    return path.substring(0, end);
  }

  /**
   * {@code rawPath} with {@code %3B} and {@code %3b} decoded to {@code ;}, as a reader that decodes
   * before it drops path parameters sees its parameters; {@code rawPath} itself if it holds none.
   */
  static String decodedSemicolons(String rawPath) {
    if (rawPath.indexOf('%') < 0) {
      return rawPath;
    }
    String decoded = rawPath.replace("%3B", ";").replace("%3b", ";");
    return decoded.equals(rawPath) ? rawPath : decoded;
  }

  /** How many segment boundaries of a spelled-out context path are tried. */
  private static final int MAX_CONTEXT_BOUNDARIES = 16;

  /**
   * {@code rawPath} less {@code contextPath}, as each reader may strip it: literally if it starts
   * with it at a segment boundary, and, for a path that is not plain, after every raw prefix (among
   * its first {@value #MAX_CONTEXT_BOUNDARIES} segment boundaries) that reads as the context path
   * once normalized ({@code /%61pp}, {@code /app;x=1}, {@code /app/../app} for {@code /app}).
   *
   * @return one or more raw paths, the literal one first; {@code rawPath} if no prefix reads as the
   *     context path
   */
  static List<String> withinContext(String rawPath, String contextPath) {
    if (contextPath == null || contextPath.isEmpty() || contextPath.equals("/")) {
      return List.of(rawPath);
    }
    List<String> candidates = new ArrayList<>(2);
    if (rawPath.startsWith(contextPath)) {
      String rest = rawPath.substring(contextPath.length());
      if (rest.isEmpty() || rest.charAt(0) == '/' || rest.charAt(0) == ';') {
        candidates.add(rest);
      }
    }
    if (!candidates.isEmpty() && isPlain(rawPath) && !hasDotSegment(rawPath)) {
      return candidates;
    }
    String context = normalizedReading(contextPath);
    int boundaries = 0;
    for (int end = 1; end <= rawPath.length() && boundaries < MAX_CONTEXT_BOUNDARIES; end++) {
      if (end < rawPath.length() && rawPath.charAt(end) != '/' && rawPath.charAt(end) != '\\') {
        continue;
      }
      boundaries++;
      if (normalizedReading(rawPath.substring(0, end)).equals(context)) {
        addDistinct(candidates, rawPath.substring(end));
      }
    }
    if (candidates.isEmpty()) {
      candidates.add(rawPath);
    }
    return candidates;
  }

  /**
   * How a dispatcher that matches the raw path reads it: each segment (separated by {@code /} or a
   * backslash) loses its path parameters (from {@code ;} on), is percent-decoded once as UTF-8
   * (malformed bytes become U+FFFD, a {@code %} not followed by two hex digits stays as it is),
   * then decoded backslashes become slashes too, runs of slashes collapse to one and the result
   * starts with {@code /}. Dot segments are kept: {@code /a/..;/b} reads {@code /a/../b}.
   *
   * @param rawPath a raw path, not decoded
   */
  public static String dispatcherReading(String rawPath) {
    if (isPlain(rawPath)) {
      return rawPath;
    }
    StringBuilder out = new StringBuilder(rawPath.length() + 1);
    int start = 0;
    int length = rawPath.length();
    while (start <= length) {
      int end = start;
      while (end < length && rawPath.charAt(end) != '/' && rawPath.charAt(end) != '\\') {
        end++;
      }
      out.append('/').append(decode(rawPath, start, parameterStart(rawPath, start, end)));
      start = end + 1;
    }
    return collapse(out);
  }

  /** Where the path parameters of the segment {@code [start, end)} begin; {@code end} if none. */
  private static int parameterStart(String rawPath, int start, int end) {
    for (int i = start; i < end; i++) {
      if (rawPath.charAt(i) == ';') {
        return i;
      }
    }
    return end;
  }

  /** Whether {@code rawPath} holds {@code %2F} or {@code %5C} (either case) or a backslash. */
  private static boolean hasEncodedSeparator(String rawPath) {
    for (int i = 0; i < rawPath.length(); i++) {
      char c = rawPath.charAt(i);
      if (c == '\\') {
        return true;
      }
      if (c == '%' && i + 2 < rawPath.length()) {
        char hi = rawPath.charAt(i + 1);
        char lo = Character.toUpperCase(rawPath.charAt(i + 2));
        if ((hi == '2' && lo == 'F') || (hi == '5' && lo == 'C')) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * How a dispatcher that splits the raw path on {@code /} alone reads it (Spring MVC's default
   * {@code PathPatternParser} does): segments lose their path parameters and are decoded, except
   * that an encoded {@code /} or {@code \} and a raw backslash stay inside their segment (written
   * {@code %2F}, {@code %5C}), so {@code /files/a%2Fb} is one segment below {@code /files}, as the
   * handler {@code /files/{name}} sees it.
   *
   * @param rawPath a raw path, not decoded
   */
  static String segmentReading(String rawPath) {
    StringBuilder out = new StringBuilder(rawPath.length() + 1);
    int start = 0;
    int length = rawPath.length();
    while (start <= length) {
      int end = rawPath.indexOf('/', start);
      if (end < 0) {
        end = length;
      }
      out.append('/');
      int valueEnd = parameterStart(rawPath, start, end);
      int from = start;
      for (int i = start; i < valueEnd; i++) {
        char c = rawPath.charAt(i);
        String separator = null;
        int skip = 0;
        if (c == '\\') {
          separator = "%5C";
          skip = 1;
        } else if (c == '%' && i + 2 < valueEnd) {
          char hi = rawPath.charAt(i + 1);
          char lo = Character.toUpperCase(rawPath.charAt(i + 2));
          if (hi == '2' && lo == 'F') {
            separator = "%2F";
          } else if (hi == '5' && lo == 'C') {
            separator = "%5C";
          }
          skip = 3;
        }
        if (separator != null) {
          out.append(decode(rawPath, from, i)).append(separator);
          from = i + skip;
          i = from - 1;
        }
      }
      out.append(decode(rawPath, from, valueEnd));
      start = end + 1;
    }
    return collapse(out);
  }

  /**
   * The {@linkplain #dispatcherReading dispatcher reading} of {@code rawPath} with its dot segments
   * resolved as RFC 3986 (section 5.2.4) does: {@code .} is dropped, {@code ..} drops the segment
   * before it and never climbs above the root. A path that ends in a dot segment ends with {@code
   * /}.
   *
   * @param rawPath a raw path, not decoded
   */
  public static String normalizedReading(String rawPath) {
    return resolveDots(dispatcherReading(rawPath));
  }

  /** {@code path}, a dispatcher reading, with its dot segments resolved. */
  static String resolveDots(String path) {
    if (!hasDotSegment(path)) {
      return path;
    }
    List<String> kept = new ArrayList<>();
    String[] segments = path.split("/", -1);
    boolean trailingSlash = false;
    for (int i = 1; i < segments.length; i++) {
      String segment = segments[i];
      boolean last = i == segments.length - 1;
      if (segment.equals(".")) {
        trailingSlash = last;
      } else if (segment.equals("..")) {
        if (!kept.isEmpty()) {
          kept.remove(kept.size() - 1);
        }
        trailingSlash = last;
      } else {
        kept.add(segment);
        trailingSlash = false;
      }
    }
    StringBuilder out = new StringBuilder(path.length());
    for (String segment : kept) {
      out.append('/').append(segment);
    }
    if (out.length() == 0 || trailingSlash) {
      out.append('/');
    }
    return out.toString();
  }

  private static void addDistinct(List<String> paths, String path) {
    if (!paths.contains(path)) {
      paths.add(path);
    }
  }

  /** Whether the decoded {@code path} has a segment that is exactly {@code .} or {@code ..}. */
  static boolean hasDotSegment(String path) {
    int start = 0;
    int length = path.length();
    while (start <= length) {
      int slash = path.indexOf('/', start);
      int end = slash < 0 ? length : slash;
      int size = end - start;
      if ((size == 1 && path.charAt(start) == '.')
          || (size == 2 && path.charAt(start) == '.' && path.charAt(start + 1) == '.')) {
        return true;
      }
      start = end + 1;
    }
    return false;
  }

  /**
   * Whether the dispatcher reading of {@code rawPath} is {@code rawPath} itself: it starts with
   * {@code /} and holds no {@code %}, {@code ;}, backslash or {@code //}.
   */
  private static boolean isPlain(String rawPath) {
    if (rawPath.isEmpty() || rawPath.charAt(0) != '/') {
      return false;
    }
    char previous = 0;
    for (int i = 0; i < rawPath.length(); i++) {
      char c = rawPath.charAt(i);
      if (c == '%' || c == ';' || c == '\\' || (c == '/' && previous == '/')) {
        return false;
      }
      previous = c;
    }
    return true;
  }

  /** {@code path} with backslashes as slashes and runs of slashes collapsed; at least {@code /}. */
  private static String collapse(CharSequence path) {
    StringBuilder out = new StringBuilder(path.length());
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i) == '\\' ? '/' : path.charAt(i);
      if (c != '/' || out.length() == 0 || out.charAt(out.length() - 1) != '/') {
        out.append(c);
      }
    }
    if (out.length() == 0 || out.charAt(0) != '/') {
      out.insert(0, '/');
    }
    return out.toString();
  }

  /**
   * Percent-decodes {@code s[from, to)} once as UTF-8; a {@code %} without two hex digits after it
   * is kept, malformed UTF-8 becomes U+FFFD.
   */
  static String decode(String s, int from, int to) {
    if (s.indexOf('%', from) < 0 || s.indexOf('%', from) >= to) {
      return s.substring(from, to);
    }
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(to - from);
    for (int i = from; i < to; i++) {
      char c = s.charAt(i);
      int high = i + 2 < to ? hex(s.charAt(i + 1)) : -1;
      int low = i + 2 < to ? hex(s.charAt(i + 2)) : -1;
      if (c == '%' && high >= 0 && low >= 0) {
        bytes.write(high * 16 + low);
        i += 2;
      } else if (c < 0x80) {
        bytes.write(c);
      } else {
        int end = Character.isHighSurrogate(c) && i + 1 < to ? i + 2 : i + 1;
        byte[] encoded = s.substring(i, end).getBytes(StandardCharsets.UTF_8);
        bytes.write(encoded, 0, encoded.length);
        i = end - 1;
      }
    }
    return bytes.toString(StandardCharsets.UTF_8);
  }

  /** The value of an ASCII hex digit, -1 for any other character. */
  static int hex(char c) {
    if (c >= '0' && c <= '9') {
      return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
      return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
      return c - 'A' + 10;
    }
    return -1;
  }
}
