package io.slidingwindow.server.http;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The admin port's {@code Host} rule when it has no token: a request is served only if its {@code
 * Host} names {@code localhost}, an IP address (IPv4, or IPv6 in brackets), with or without a port,
 * or one of the host names the operator allowed (or if it has no {@code Host}, which no browser
 * omits); else 403.
 *
 * <p>Why: without a token the port listens on 127.0.0.1, and a web page whose host name its owner
 * rebinds to 127.0.0.1 (DNS rebinding) is, for the operator's browser, of the same origin as the
 * port: its script could read the dashboard's feed (the most refused keys: client addresses, API
 * keys, user names), the overrides and the configuration. Its requests name the page's host in
 * {@code Host}, which its script cannot change, while no page's owner can point {@code localhost}
 * or an IP address elsewhere. The rule cannot wait for a browser's headers: a browser sends {@code
 * Sec-Fetch-Site} only to a potentially trustworthy origin (HTTPS, {@code localhost}, a loopback
 * address), never to {@code http://rebound.example}, and no {@code Origin} on a same-origin {@code
 * GET}. Callers on the loopback address (Prometheus beside the service, curl, scripts) name {@code
 * localhost} or {@code 127.0.0.1} anyway. With a token nothing is needed: a page cannot know it.
 * Immutable and thread-safe.
 */
public final class AllowedHosts {

  /** What a refused request is told (403): where the port may be opened. */
  public static final String REFUSED =
      "without an admin token this port answers only at localhost or an IP address (this"
          + " request's Host names another, as a web page rebound to this address would): open"
          + " it at localhost or 127.0.0.1, list the host name in --admin-allowed-hosts"
          + " (SLIDINGWINDOW_ADMIN_ALLOWED_HOSTS), or set an admin token";

  private static final Pattern IPV4 =
      Pattern.compile(
          "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");
  private static final Pattern IPV6 = Pattern.compile("\\[[0-9a-f]*:[0-9a-f:.]*]");
  private static final Pattern PORT = Pattern.compile("\\d{1,5}");

  private final Set<String> names;

  /** A rule that also serves {@code names}: host names, compared ignoring case. */
  public AllowedHosts(List<String> names) {
    this.names = Set.copyOf(names.stream().map(n -> n.toLowerCase(Locale.ROOT)).toList());
  }

  /**
   * Whether {@code exchange} may be served: it names no host, or one this rule admits ({@link
   * Exchange#host()}: the {@code Host}, or an absolute-form target's authority in its place).
   */
  public boolean serves(Exchange exchange) {
    String host = exchange.host();
    return host == null || admits(host);
  }

  /**
   * Whether {@code host}, a {@code Host} header or null, names {@code localhost}, an IP address or
   * an allowed name.
   */
  public boolean admits(String host) {
    String name = name(host);
    return name != null
        && (name.equals("localhost")
            || IPV4.matcher(name).matches()
            || IPV6.matcher(name).matches()
            || names.contains(name));
  }

  /** Whether {@code host}, a {@code Host} header or null, names one of the allowed names. */
  public boolean allowedName(String host) {
    String name = name(host);
    return name != null && names.contains(name);
  }

  /**
   * The host of {@code host}, a {@code Host} header, in lower case without its port (an IPv6
   * address keeps its brackets), or null if it is missing or malformed.
   */
  static String name(String host) {
    if (host == null) {
      return null;
    }
    String text = host.trim().toLowerCase(Locale.ROOT);
    int colon = text.startsWith("[") ? text.indexOf(':', text.indexOf(']') + 1) : text.indexOf(':');
    if (text.startsWith("[") && text.indexOf(']') < 0) {
      return null;
    }
    String name = colon < 0 ? text : text.substring(0, colon);
    if (colon >= 0 && !PORT.matcher(text.substring(colon + 1)).matches()) {
      return null;
    }
    return name.isEmpty() ? null : name;
  }
}
