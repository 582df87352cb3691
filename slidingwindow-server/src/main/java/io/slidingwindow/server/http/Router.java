package io.slidingwindow.server.http;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.slidingwindow.server.settings.Secret;
import java.lang.System.Logger.Level;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Sends each request to the route of its exact path: 404 for a path without one, 405 (with {@code
 * Allow}) for another method. With a token, every request must carry {@code Authorization: Bearer
 * TOKEN} first, or gets 401 whatever its path, so that no path is revealed. Without a token, a
 * router given {@link AllowedHosts} answers a request whose host they do not admit 403, also before
 * its path is looked at, so that no spelling of a path escapes: its {@code Host}, or the authority
 * of an absolute-form target, which takes its place ({@link RequestTarget}). A target that is not
 * served (asterisk-form, authority-form) is answered 400. Each such refusal, and each a route makes
 * through {@link #refuse}, is told to the router's {@link Refusals} first. A route that throws is
 * answered 500 and logged in one line. Routes are added before the port opens; then thread-safe.
 */
public final class Router {

  /** What answers one path. */
  public interface Route {
    /** Answers {@code exchange}, now or later, exactly once. */
    void handle(Exchange exchange);
  }

  /** Hears each request refused before it is served (401, 403, 415): for metrics and the log. */
  public interface Refusals {
    /**
     * {@code exchange} is about to be answered {@code status} with {@code message}, refused for
     * {@code reason}, a word from a small set (a metric tag). Called on the event loop: must not
     * block.
     */
    void refused(Exchange exchange, String reason, int status, String message);
  }

  /** The reason of a request without the token, or with another: 401. */
  public static final String UNAUTHORIZED = "unauthorized";

  /** The reason of a request whose {@code Host} is not answered: 403. */
  public static final String HOST_NOT_ALLOWED = "host_not_allowed";

  private static final System.Logger LOG = System.getLogger(Router.class.getName());

  /** By path, then by method. */
  private final Map<String, Map<String, Route>> routes = new HashMap<>();

  private final Secret token;
  private final AllowedHosts hosts;
  private final Refusals refusals;

  /** A router that asks every request for {@code token}, or for nothing when it is null. */
  public Router(Secret token) {
    this(token, null, (exchange, reason, status, message) -> {});
  }

  /**
   * A router that asks every request for {@code token}; when it is null, every request must name a
   * {@code Host} that {@code hosts} admits, unless {@code hosts} is null too. Each refusal is told
   * to {@code refusals}.
   */
  public Router(Secret token, AllowedHosts hosts, Refusals refusals) {
    this.token = token;
    this.hosts = token == null ? hosts : null;
    this.refusals = refusals;
  }

  /** Routes {@code method} requests for {@code path} to {@code route}. */
  public Router add(String method, String path, Route route) {
    routes.computeIfAbsent(path, p -> new LinkedHashMap<>()).put(method, route);
    return this;
  }

  /**
   * How a request is refused before its path is looked at: for {@code reason}, with {@code status},
   * {@code {"error": message}} and header name/value pairs.
   */
  record Denial(String reason, int status, String message, String... headers) {}

  /**
   * The refusal of a request with these {@code Authorization} and {@code Host} headers (each may be
   * null) before its path is looked at, or null if it passes: without the token 401, at a {@code
   * Host} not answered 403.
   */
  private Denial denial(String authorization, String host) {
    if (token != null && !authorized(authorization)) {
      return new Denial(
          UNAUTHORIZED,
          401,
          "this port wants Authorization: Bearer <token>",
          "WWW-Authenticate",
          "Bearer");
    }
    if (hosts != null && host != null && !hosts.admits(host)) {
      return new Denial(HOST_NOT_ALLOWED, 403, AllowedHosts.REFUSED);
    }
    return null;
  }

  /**
   * The refusal of a request of which only the head has come, told to the router's {@link Refusals}
   * now; null if its body may be gathered (or, after {@code Expect: 100-continue}, asked for).
   * Every request's head is screened so, before any of its body is read: a caller without the
   * token, or at a {@code Host} not answered, cannot make the port read and hold a body it will
   * refuse. Event loop only.
   */
  Denial screen(ChannelHandlerContext ctx, HttpRequest head) {
    Denial denial =
        denial(
            head.headers().get(HttpHeaderNames.AUTHORIZATION),
            RequestTarget.of(head.uri()).host(head.headers().get(HttpHeaderNames.HOST)));
    if (denial != null) {
      refusals.refused(
          Exchange.ofHead(ctx, head), denial.reason(), denial.status(), denial.message());
    }
    return denial;
  }

  void dispatch(Exchange exchange) {
    Denial denial = denial(exchange.header("Authorization"), exchange.host());
    if (denial != null) {
      refuse(exchange, denial.reason(), denial.status(), denial.message(), denial.headers());
      return;
    }
    if (exchange.targetProblem() != null) {
      exchange.fail(400, exchange.targetProblem());
      return;
    }
    Map<String, Route> methods = routes.get(exchange.path());
    if (methods == null) {
      exchange.fail(404, "no such endpoint: " + exchange.path());
      return;
    }
    Route route = methods.get(exchange.method());
    if (route == null) {
      String allowed = String.join(", ", methods.keySet());
      exchange.fail(405, "use " + allowed + " for " + exchange.path(), "Allow", allowed);
      return;
    }
    try {
      route.handle(exchange);
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "HTTP " + exchange.path() + " failed: " + e, e);
      exchange.fail(500, "the rate limit service failed");
    }
  }

  /**
   * Answers {@code exchange} {@code status} with {@code {"error": message}} and header name/value
   * pairs, after telling the router's {@link Refusals} that it was refused for {@code reason}.
   */
  public void refuse(
      Exchange exchange, String reason, int status, String message, String... headers) {
    refusals.refused(exchange, reason, status, message);
    exchange.fail(status, message, headers);
  }

  private boolean authorized(String header) {
    String prefix = "Bearer ";
    if (header == null || !header.regionMatches(true, 0, prefix, 0, prefix.length())) {
      return false;
    }
    return token.matches(header.substring(prefix.length()).trim().toCharArray());
  }
}
