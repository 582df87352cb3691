package io.slidingwindow.server.http;

import java.util.Locale;

/**
 * A request line's target read as RFC 9112 §3.2 has it. The origin-form ({@code /v1/decide?x})
 * routes on its path. The absolute-form ({@code http://127.0.0.1:8081/v1/decide}), which a server
 * MUST accept (§3.2.2), routes on the path of the URI (an empty one is {@code /}), and its
 * authority is the request's host: the {@code Host} header is then ignored in favour of it, for
 * {@link AllowedHosts} too, so that a foreign authority is refused as a foreign {@code Host} is.
 * The asterisk-form ({@code OPTIONS *}), the authority-form ({@code CONNECT host:443}) and any
 * other target are not served: {@link #problem()} says why, and the port answers 400 before looking
 * up a route, instead of a 404 for a path nobody sent. An absolute URI with user information
 * ({@code http://user@host/}, which RFC 9110 §4.2.4 forbids senders) or without a host is refused
 * the same way. Immutable.
 *
 * @param path the path without the query, or null if the target is not served
 * @param authority the absolute-form's authority, or null for any other form
 * @param problem why the target is not served, or null if it is
 */
record RequestTarget(String path, String authority, String problem) {

  /** Reads {@code uri}, the request line's target. */
  static RequestTarget of(String uri) {
    if (uri.startsWith("/")) {
      return new RequestTarget(withoutQuery(uri), null, null);
    }
    if (uri.equals("*")) {
      return refused(
          "the request target '*' (asterisk-form, OPTIONS for the whole server) is not served;"
              + " name a path such as /v1/decide");
    }
    String lower = uri.toLowerCase(Locale.ROOT);
    int scheme = lower.startsWith("http://") ? 7 : lower.startsWith("https://") ? 8 : -1;
    if (scheme < 0) {
      return refused(
          "the request target must be a path such as /v1/decide or an absolute http URI;"
              + " an authority-form target (for CONNECT) or any other is not served");
    }
    int end = scheme;
    while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
      end++;
    }
    String authority = uri.substring(scheme, end);
    if (authority.isEmpty() || authority.indexOf('@') >= 0) {
      return refused(
          "an absolute request target needs a host and no user information, as"
              + " http://127.0.0.1:8081/v1/decide");
    }
    String rest = uri.substring(end);
    String path = rest.startsWith("/") ? withoutQuery(rest) : "/";
    return new RequestTarget(path, authority, null);
  }

  /**
   * The host the request is for: the absolute-form's authority, else {@code hostHeader} (which may
   * be null).
   */
  String host(String hostHeader) {
    return authority != null ? authority : hostHeader;
  }

  private static RequestTarget refused(String problem) {
    return new RequestTarget(null, null, problem);
  }

  private static String withoutQuery(String target) {
    int query = target.indexOf('?');
    return query < 0 ? target : target.substring(0, query);
  }
}
