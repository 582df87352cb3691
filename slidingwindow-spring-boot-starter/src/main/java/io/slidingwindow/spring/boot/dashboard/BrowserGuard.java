package io.slidingwindow.spring.boot.dashboard;

import io.slidingwindow.dashboard.DashboardFeed;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;
import org.springframework.http.server.PathContainer;
import org.springframework.web.cors.CorsConfiguration;

/**
 * Which requests to the {@code slidingwindow} endpoint a web page may have sent, and so are
 * refused, whatever the application's security lets through: its writes (a plan change, a quota
 * reset) and its reads that show the application's keys or their state (the feed, a key's quota, a
 * rule's plans); every other request passes. The page's own files ({@code index.html} and {@code
 * dashboard/}<i>name</i>, the same bytes for everyone, holding nothing of the application) pass, so
 * that the page opens anywhere and can say why its feed is refused.
 *
 * <p>Why: the actuator already refuses a body that is not JSON (415), and a page of another origin
 * sends JSON, or reads an answer, only after asking (CORS), which the actuator grants only to the
 * origins of {@code management.endpoints.web.cors.*}. But a page whose host name its owner rebinds
 * to the application's address (DNS rebinding) is, for the browser, of the endpoint's own origin:
 * it sends JSON and reads the answers without asking, with whatever the address lets through (a
 * management port on 127.0.0.1 with no security, say), and so could change a plan, or read the keys
 * refused most or a key's quota, from the operator's browser.
 *
 * <p>A browser names the page's origin on every {@code POST} and {@code DELETE} ({@code Origin})
 * and says where a request comes from ({@code Sec-Fetch-Site}), headers a page's script cannot set.
 * A request that carries either passes only if its origin is one the actuator's CORS configuration
 * allows, or if it comes from the server's own origin ({@code Sec-Fetch-Site} absent or {@code
 * same-origin}, or for a read {@code none}: an address the user typed; {@code Origin} absent or
 * naming the {@code Host} it was sent to) at an address no one can rebind: a {@code Host} of {@code
 * localhost} or an IP address. A write that carries neither (curl, scripts, HTTP clients) passes.
 *
 * <p>A read is guarded by its {@code Host} even without those headers: a browser sends {@code
 * Sec-Fetch-Site} only to a trustworthy origin (HTTPS, {@code localhost}, a loopback address) and
 * no {@code Origin} on a read of its page's own origin, so a rebound page's read over HTTP carries
 * neither, and only its {@code Host}, the page's host name, tells it from a script's. A read passes
 * at {@code localhost} or an IP address, or at a host name whose origin (the request's scheme and
 * {@code Host}) the actuator's CORS configuration allows. A request without {@code Host} (HTTP/1.0
 * allows that, {@code curl --http1.0} sends it) is no browser's, and has no host name to judge: it
 * is judged by the headers above alone, and so a read without them passes. The name a server puts
 * in place of the missing header (its own, or {@code localhost}) says nothing of where the request
 * came from, and is not judged.
 *
 * <p>Thread-safe. Its only state is the set of refusals already logged at INFO ({@link #refuse}).
 */
final class BrowserGuard {

  /**
   * The most distinct refusals (method and reason) a guard remembers having logged at INFO: the
   * same refusal again goes to DEBUG (a page left open at a refused host name polls every second);
   * once this many are remembered, they are forgotten, and each is logged at INFO once more. So a
   * sender who makes up host names cannot push a later refusal out of INFO.
   */
  static final int REFUSALS_REMEMBERED = 256;

  /** How much of a refusal's reason, which holds the headers the sender chose, is remembered. */
  private static final int REMEMBERED_REASON_LENGTH = 200;

  private static final System.Logger LOG = System.getLogger(SlidingWindowQuotas.AUDIT_LOGGER);

  /** The methods that read. */
  private static final List<String> READS = List.of("GET", "HEAD");

  /** The methods that neither read nor change the endpoint's state, which pass. */
  private static final List<String> PASS = List.of("OPTIONS", "TRACE");

  private static final Pattern IPV4 =
      Pattern.compile(
          "(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)(\\.(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)){3}");

  /** Four hexadecimal digits at most: one group of an IPv6 address. */
  private static final Pattern IPV6_GROUP = Pattern.compile("[0-9a-fA-F]{1,4}");

  /** A port after an IPv6 address in brackets. */
  private static final Pattern PORT = Pattern.compile(":\\d{1,5}");

  private static final String CORS = "management.endpoints.web.cors.";

  private final List<String> endpoint;
  private final CorsConfiguration cors;
  private final Set<String> loggedAtInfo = ConcurrentHashMap.newKeySet();

  /**
   * Guards the endpoint at path {@code endpointPath} (such as {@code /actuator/slidingwindow}),
   * letting through the origins {@code cors} allows.
   */
  BrowserGuard(String endpointPath, CorsConfiguration cors) {
    this.endpoint = segments(PathContainer.parsePath(endpointPath));
    this.cors = cors;
  }

  /**
   * Guards the {@code slidingwindow} endpoint at its path under {@code environment}'s {@code
   * management.endpoints.web.base-path} and {@code path-mapping}, letting through the origins of
   * its {@code management.endpoints.web.cors.allowed-origins} and {@code allowed-origin-patterns}.
   */
  static BrowserGuard of(Environment environment) {
    String base = environment.getProperty("management.endpoints.web.base-path", "/actuator");
    String mapping =
        environment.getProperty(
            "management.endpoints.web.path-mapping." + SlidingWindowEndpoint.ID,
            SlidingWindowEndpoint.ID);
    Binder binder = Binder.get(environment);
    CorsConfiguration cors = new CorsConfiguration();
    cors.setAllowedOrigins(strings(binder, "allowed-origins"));
    cors.setAllowedOriginPatterns(strings(binder, "allowed-origin-patterns"));
    return new BrowserGuard(base + "/" + mapping, cors);
  }

  private static List<String> strings(Binder binder, String name) {
    return binder.bind(CORS + name, Bindable.listOf(String.class)).orElse(List.of());
  }

  /**
   * Whether a {@code method} request to {@code path} (within the application, as the server parsed
   * it) is one this guards: a method other than {@code OPTIONS} and {@code TRACE}, to a path that
   * holds the endpoint's path ({@code /actuator/slidingwindow} and below, also behind a servlet
   * path such as {@code spring.mvc.servlet.path}), but for a {@code GET} or {@code HEAD} of the
   * page's files ({@code index.html}, {@code dashboard/NAME} right below the endpoint's path, in
   * the case the endpoint answers). Paths are compared by their decoded segments, without matrix
   * variables or empty segments, and the endpoint's path without case, so that no spelling the
   * endpoint answers escapes; a path of the application's own that holds the endpoint's is guarded
   * too.
   */
  boolean guards(String method, PathContainer path) {
    String upper = method.toUpperCase(Locale.ROOT);
    if (PASS.contains(upper)) {
      return false;
    }
    boolean read = READS.contains(upper);
    List<String> segments = segments(path);
    for (int start = 0; start + endpoint.size() <= segments.size(); start++) {
      if (startsAt(segments, start)
          && !(read && pageFile(segments.subList(start + endpoint.size(), segments.size())))) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code rest}, the segments below the endpoint's path, name one of the page's files. */
  private static boolean pageFile(List<String> rest) {
    return rest.equals(List.of(SlidingWindowPageWebExtension.PAGE))
        || (rest.size() == 2 && rest.get(0).equals(SlidingWindowPageWebExtension.FOLDER));
  }

  private boolean startsAt(List<String> segments, int start) {
    for (int i = 0; i < endpoint.size(); i++) {
      if (!segments.get(start + i).equalsIgnoreCase(endpoint.get(i))) {
        return false;
      }
    }
    return true;
  }

  /**
   * Why a guarded {@code method} request with these headers (each null when absent), received over
   * {@code scheme} ({@code http} or {@code https}), is refused, or null if it passes. Without a
   * {@code host} (an HTTP/1.0 request may come without {@code Host}; a browser always sends one) a
   * request is judged by its {@code Origin} and {@code Sec-Fetch-Site} alone.
   */
  String refusal(String method, String scheme, String origin, String fetchSite, String host) {
    return refusal(method, scheme, origin, fetchSite, host, "Host");
  }

  /**
   * As {@link #refusal(String, String, String, String, String)}, and then, if that passes, judged
   * again as if each of {@code forwardedHosts} (see {@link #forwardedHosts}) were its {@code Host}:
   * refused if any would be. A proxy that passes the request on to the server's own address puts
   * that address in {@code Host}, which no one can rebind, and the name the browser sent in {@code
   * X-Forwarded-Host} or {@code Forwarded: host=}; a page rebound to the proxy is seen there. These
   * headers only ever refuse more: a request that the {@code Host} refuses stays refused whatever
   * they say, so a sender who writes them gains nothing.
   */
  String refusal(
      String method,
      String scheme,
      String origin,
      String fetchSite,
      String host,
      List<String> forwardedHosts) {
    String refusal = refusal(method, scheme, origin, fetchSite, host);
    for (int i = 0; refusal == null && i < forwardedHosts.size(); i++) {
      refusal = refusal(method, scheme, origin, fetchSite, forwardedHosts.get(i), "forwarded host");
    }
    return refusal;
  }

  /**
   * The host names a proxy says the request was sent to: every value of every {@code
   * X-Forwarded-Host} header (a list, comma-separated) and every {@code host=} of every {@code
   * Forwarded} header (RFC 7239, quoted or not), in order, blank ones left out.
   */
  static List<String> forwardedHosts(List<String> xForwardedHost, List<String> forwarded) {
    List<String> hosts = new ArrayList<>();
    for (String value : xForwardedHost) {
      for (String host : value.split(",")) {
        addHost(hosts, host);
      }
    }
    for (String value : forwarded) {
      for (String element : value.split(",")) {
        for (String pair : element.split(";")) {
          int equals = pair.indexOf('=');
          if (equals > 0 && pair.substring(0, equals).trim().equalsIgnoreCase("host")) {
            addHost(hosts, pair.substring(equals + 1));
          }
        }
      }
    }
    return List.copyOf(hosts);
  }

  private static void addHost(List<String> hosts, String value) {
    String host = value.trim();
    if (host.length() >= 2 && host.startsWith("\"") && host.endsWith("\"")) {
      host = host.substring(1, host.length() - 1).trim();
    }
    if (!host.isEmpty()) {
      hosts.add(host);
    }
  }

  private String refusal(
      String method,
      String scheme,
      String origin,
      String fetchSite,
      String host,
      String hostHeader) {
    boolean read = READS.contains(method.toUpperCase(Locale.ROOT));
    if (origin == null && fetchSite == null && !read) {
      return null;
    }
    String verb = read ? "read" : "change";
    String site = fetchSite == null ? null : fetchSite.trim().toLowerCase(Locale.ROOT);
    boolean own = site == null || site.equals("same-origin") || (read && site.equals("none"));
    String ownOrigin = host == null ? null : scheme + "://" + host.trim();
    String named = origin != null ? origin : own ? ownOrigin : null;
    if (named != null && cors.checkOrigin(named) != null) {
      return null;
    }
    if (!own) {
      return "a web page of another origin (Sec-Fetch-Site: "
          + fetchSite
          + ") may not "
          + verb
          + " this";
    }
    if (origin != null && !sameAuthority(origin, host)) {
      return "a web page of another origin (Origin: " + origin + ") may not " + verb + " this";
    }
    if (host != null && !unbindable(host)) {
      return "a request at a host name ("
          + hostHeader
          + ": "
          + host
          + ") may not "
          + verb
          + " this, as a web page whose name was pointed at this server could send it: open the"
          + " page"
          + (read ? ", or call," : "")
          + " at localhost or an IP address, or name its origin"
          + (ownOrigin == null ? "" : ", " + ownOrigin + ",")
          + " in management.endpoints.web.cors.allowed-origins"
          + (read ? "" : "; or call from a server")
          + (ownOrigin != null && "http".equalsIgnoreCase(scheme)
              ? " (the origin is read from the request's scheme and Host: behind a proxy that"
                  + " ends TLS, set server.forward-headers-strategy so that the server reads"
                  + " X-Forwarded-Proto and an https origin can match)"
              : "");
    }
    return null;
  }

  /**
   * The answer to a refused request, {@code {"error": reason}} (403, {@code application/json}), and
   * its log line, with the endpoint's other operations: the method and the reason, not the path,
   * which may hold a key. At INFO the first time this guard refuses so, at DEBUG after that (see
   * {@link #REFUSALS_REMEMBERED}).
   */
  byte[] refuse(String method, String reason) {
    if (loggedAtInfo.size() >= REFUSALS_REMEMBERED) {
      loggedAtInfo.clear();
    }
    String seen = method + " " + reason;
    boolean first =
        loggedAtInfo.add(
            seen.length() > REMEMBERED_REASON_LENGTH
                ? seen.substring(0, REMEMBERED_REASON_LENGTH)
                : seen);
    LOG.log(
        first ? Level.INFO : Level.DEBUG,
        "slidingwindow endpoint: refused {0}, which a web page may have sent: {1}"
            + (first ? " (the same refusal again is logged at DEBUG)" : ""),
        method,
        reason);
    return DashboardFeed.toJson(Map.of("error", reason)).getBytes(StandardCharsets.UTF_8);
  }

  /** Whether {@code origin}, {@code scheme://authority}, names {@code host}. */
  private static boolean sameAuthority(String origin, String host) {
    int scheme = origin.indexOf("://");
    return host != null && scheme > 0 && origin.substring(scheme + 3).equalsIgnoreCase(host.trim());
  }

  /**
   * Whether {@code host}, a {@code Host} header, names {@code localhost} or an IP address (IPv6 in
   * brackets, optionally followed by a port), which no web page's owner can point elsewhere.
   */
  static boolean unbindable(String host) {
    if (host == null) {
      return false;
    }
    String name = host.trim();
    if (name.startsWith("[")) {
      int end = name.indexOf(']');
      if (end < 0) {
        return false;
      }
      String rest = name.substring(end + 1);
      return ipv6(name.substring(1, end)) && (rest.isEmpty() || PORT.matcher(rest).matches());
    }
    int colon = name.indexOf(':');
    if (colon >= 0) {
      name = name.substring(0, colon);
    }
    return name.equalsIgnoreCase("localhost") || IPV4.matcher(name).matches();
  }

  /**
   * Whether {@code text} is an IPv6 address in text form: eight groups of one to four hexadecimal
   * digits, or fewer with one {@code ::}, the last two optionally written as an IPv4 address. No
   * zone ({@code %eth0}): a browser sends none.
   */
  static boolean ipv6(String text) {
    int lastColon = text.lastIndexOf(':');
    if (lastColon < 0) {
      return false;
    }
    String groups = text;
    if (text.indexOf('.') >= 0) {
      if (!IPV4.matcher(text.substring(lastColon + 1)).matches()) {
        return false;
      }
      groups = text.substring(0, lastColon + 1) + "0:0";
    }
    int gap = groups.indexOf("::");
    if (gap < 0) {
      return count(groups) == 8;
    }
    if (groups.indexOf("::", gap + 1) >= 0) {
      return false;
    }
    int before = groups.substring(0, gap).isEmpty() ? 0 : count(groups.substring(0, gap));
    int after = groups.substring(gap + 2).isEmpty() ? 0 : count(groups.substring(gap + 2));
    return before >= 0 && after >= 0 && before + after <= 7;
  }

  /** How many groups {@code text} has, split at single colons; -1 if one is not a group. */
  private static int count(String text) {
    String[] groups = text.split(":", -1);
    for (String group : groups) {
      if (!IPV6_GROUP.matcher(group).matches()) {
        return -1;
      }
    }
    return groups.length;
  }

  private static List<String> segments(PathContainer path) {
    List<String> segments = new ArrayList<>();
    for (PathContainer.Element element : path.elements()) {
      if (element instanceof PathContainer.PathSegment segment
          && !segment.valueToMatch().isEmpty()) {
        segments.add(segment.valueToMatch());
      }
    }
    return segments;
  }
}
