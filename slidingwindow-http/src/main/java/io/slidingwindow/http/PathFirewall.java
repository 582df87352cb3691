package io.slidingwindow.http;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;

/**
 * Refuses request paths that a web server and the framework behind it may read differently, before
 * any rule is counted or handler runs; the servlet filter ({@code RateLimitEnforcer}) answers them
 * 400 Bad Request.
 *
 * <p>A rate limit rule names paths, and a request must not escape it by spelling its path so that
 * the container reads one path and the dispatcher another ({@code /v1/product/..;} is {@code /v1/}
 * to a servlet container and {@code /v1/product/{id}} with {@code id = ".."} to Spring MVC). The
 * {@linkplain #strict() strict} firewall, the default, refuses a raw request URI (as received, not
 * decoded) that holds any of:
 *
 * <ul>
 *   <li>a {@code ;} (path parameters, {@code ;jsessionid=}, {@code ..;}), raw or encoded ({@code
 *       %3B}: a reader that decodes before it drops path parameters drops what follows it) — {@link
 *       Allowance#SEMICOLON};
 *   <li>an encoded period {@code %2E} — {@link Allowance#ENCODED_PERIOD};
 *   <li>an encoded slash or backslash {@code %2F}, {@code %5C} — {@link Allowance#ENCODED_SLASH};
 *   <li>an encoded percent {@code %25} (a second decoding would read something else) — {@link
 *       Allowance#ENCODED_PERCENT};
 *   <li>a backslash — {@link Allowance#BACKSLASH};
 *   <li>an empty segment {@code //} — {@link Allowance#DOUBLE_SLASH};
 *   <li>always, whatever is allowed: a dot segment ({@code .} or {@code ..}, however spelled:
 *       plain, encoded, or with path parameters, raw or encoded: {@code ..%3B}), a {@code %} not
 *       followed by two hex digits, percent-encoded bytes that are not UTF-8 (overlong forms such
 *       as {@code %C0%AE} included), an encoded control character, and any raw character that is
 *       not printable ASCII (controls, spaces, non-ASCII).
 * </ul>
 *
 * <p>Hex digits match in either case. Allowing something trades safety for compatibility: each
 * {@link Allowance} says what it lets through. The two defences back each other up: rules match
 * every reading of a path the firewall lets through (see {@link RequestPaths}), so an allowed
 * spelling is counted where the dispatcher takes it, and the firewall keeps out spellings whose
 * reading no one foresaw. The checks are those of Spring Security's {@code StrictHttpFirewall},
 * applied to the raw URI alone. An enforcer runs the firewall only if one of its rules has path
 * patterns.
 *
 * <p>Immutable and thread-safe.
 */
public final class PathFirewall {

  /** A spelling the strict firewall refuses and a relaxed one lets through. */
  public enum Allowance {
    /**
     * {@code ;} in the path, raw or encoded ({@code %3B}): URL-rewritten sessions ({@code
     * ;jsessionid=}) and matrix variables. Risk: containers drop path parameters before they pick a
     * servlet, dispatchers differ in which they drop, and a reader that decodes first takes {@code
     * %3B} for a parameter where one that drops parameters first takes it for data; dot segments
     * with parameters ({@code ..;}, {@code ..%3B}) stay refused.
     */
    SEMICOLON,
    /**
     * {@code %2E}, for a period inside a segment ({@code /files/a%2Ejson}). Risk: a decoder that
     * runs twice or late reads a dot; dot segments spelled with it stay refused.
     */
    ENCODED_PERIOD,
    /**
     * {@code %2F} and {@code %5C} inside a segment ({@code /files/a%2Fb}). Risk: one reader sees
     * one segment where another sees two; most containers refuse or rewrite these themselves.
     */
    ENCODED_SLASH,
    /**
     * {@code %25}, a literal percent sign. Risk: a path decoded twice reads something else, {@code
     * %252e} becoming {@code .}.
     */
    ENCODED_PERCENT,
    /** A raw backslash. Risk: some servers read it as a slash and some as a character. */
    BACKSLASH,
    /**
     * Empty segments ({@code //}). Risk: low, rules ignore empty segments; some dispatchers do not
     * and send {@code /a//b} elsewhere than {@code /a/b}.
     */
    DOUBLE_SLASH
  }

  private static final PathFirewall OFF = new PathFirewall(false, EnumSet.noneOf(Allowance.class));
  private static final PathFirewall STRICT =
      new PathFirewall(true, EnumSet.noneOf(Allowance.class));

  private final boolean enabled;
  private final Set<Allowance> allowed;

  private PathFirewall(boolean enabled, Set<Allowance> allowed) {
    this.enabled = enabled;
    this.allowed = allowed;
  }

  /** The default: refuses every spelling listed above. */
  public static PathFirewall strict() {
    return STRICT;
  }

  /**
   * No firewall: every path goes on, and rules are matched against every reading of it. Use it only
   * behind a proxy or server that already refuses such paths.
   */
  public static PathFirewall off() {
    return OFF;
  }

  /**
   * The strict firewall letting {@code allowances} through; with none, {@link #strict()}.
   *
   * @throws IllegalArgumentException if {@code allowances} or one of them is null
   */
  public static PathFirewall allowing(Allowance... allowances) {
    if (allowances == null || Arrays.asList(allowances).contains(null)) {
      throw new IllegalArgumentException(
          "allowances must not be null or hold null, was "
              + (allowances == null ? null : Arrays.toString(allowances)));
    }
    if (allowances.length == 0) {
      return STRICT;
    }
    EnumSet<Allowance> set = EnumSet.noneOf(Allowance.class);
    set.addAll(Arrays.asList(allowances));
    return new PathFirewall(true, set);
  }

  /** Whether this firewall checks paths at all (false only for {@link #off()}). */
  public boolean enabled() {
    return enabled;
  }

  /** The spellings let through, in declaration order; empty for the strict firewall. */
  public Set<Allowance> allowed() {
    return allowed.isEmpty() ? Set.of() : EnumSet.copyOf(allowed);
  }

  /**
   * Checks a raw request URI.
   *
   * @param requestUri the path as received, not decoded, without the query (a servlet's {@code
   *     getRequestURI()}); an absolute-form target is checked by its path
   * @return empty if the path may go on, otherwise why it is refused (for logs; it never quotes the
   *     path)
   */
  public Optional<String> check(String requestUri) {
    if (!enabled) {
      return Optional.empty();
    }
    if (requestUri == null) {
      return Optional.of("no request URI");
    }
    if (requestUri.equals("*")) {
      return Optional.empty(); // OPTIONS *
    }
    String path = RequestPaths.pathOfTarget(requestUri);
    if (path.isEmpty() || path.charAt(0) != '/') {
      return Optional.of("the path does not start with '/'");
    }
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c < 0x21 || c > 0x7e) {
        return Optional.of("a control, space or non-ASCII character");
      }
      if (c == ';' && !allowed.contains(Allowance.SEMICOLON)) {
        return Optional.of("a path parameter (';')");
      }
      if (c == '\\' && !allowed.contains(Allowance.BACKSLASH)) {
        return Optional.of("a backslash");
      }
      if (c == '/'
          && i > 0
          && path.charAt(i - 1) == '/'
          && !allowed.contains(Allowance.DOUBLE_SLASH)) {
        return Optional.of("an empty segment ('//')");
      }
      if (c == '%') {
        int high = i + 2 < path.length() ? RequestPaths.hex(path.charAt(i + 1)) : -1;
        int low = i + 2 < path.length() ? RequestPaths.hex(path.charAt(i + 2)) : -1;
        if (high < 0 || low < 0) {
          return Optional.of("a '%' not followed by two hex digits");
        }
        int b = high * 16 + low;
        if (b == '.' && !allowed.contains(Allowance.ENCODED_PERIOD)) {
          return Optional.of("an encoded period (%2E)");
        }
        if ((b == '/' || b == '\\') && !allowed.contains(Allowance.ENCODED_SLASH)) {
          return Optional.of("an encoded slash or backslash (%2F, %5C)");
        }
        if (b == '%' && !allowed.contains(Allowance.ENCODED_PERCENT)) {
          return Optional.of("an encoded percent sign (%25)");
        }
        if (b == ';' && !allowed.contains(Allowance.SEMICOLON)) {
          return Optional.of("an encoded path parameter (%3B)");
        }
        if (b < 0x20 || b == 0x7f) {
          return Optional.of("an encoded control character");
        }
      }
    }
    if (path.indexOf('%') >= 0 && !isUtf8(path)) {
      return Optional.of("percent-encoded bytes that are not UTF-8");
    }
    // Not normalized: the path as a dispatcher reads it (parameters dropped, decoded, backslashes
    // as slashes) changes when its dot segments are resolved, however they were spelled, also to a
    // reader that decodes %3B before it drops parameters (checked only when the path holds %3B,
    // which the loop above let through only if SEMICOLON is allowed).
    String semicolons = RequestPaths.decodedSemicolons(path);
    if (hasDotSegment(path) || (semicolons != path && hasDotSegment(semicolons))) {
      return Optional.of("a dot segment ('.' or '..')");
    }
    return Optional.empty();
  }

  /** Whether the dispatcher's reading of {@code path} changes when its dot segments resolve. */
  private static boolean hasDotSegment(String path) {
    String decoded = RequestPaths.dispatcherReading(path);
    return !RequestPaths.resolveDots(decoded).equals(decoded);
  }

  /** Whether the percent-encoded bytes of {@code path} (checked to be well formed) are UTF-8. */
  private static boolean isUtf8(String path) {
    ByteBuffer bytes = ByteBuffer.allocate(path.length());
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c == '%') {
        int high = RequestPaths.hex(path.charAt(i + 1));
        bytes.put((byte) (high * 16 + RequestPaths.hex(path.charAt(i + 2))));
        i += 2;
      } else {
        bytes.put((byte) c);
      }
    }
    bytes.flip();
    try {
      StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(bytes);
      return true;
    } catch (CharacterCodingException e) {
      return false;
    }
  }

  @Override
  public String toString() {
    return !enabled ? "PathFirewall[off]" : "PathFirewall[strict, allowing " + allowed + "]";
  }
}
