package io.slidingwindow.webflux;

import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.webflux.internal.ReactiveKeySource;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.web.server.ServerWebExchange;

/**
 * What a rate limit filter saw of an exchange's request (its method and raw path) and which rules
 * of its core applied to it so far, kept as an exchange attribute so that the request can be looked
 * at once more where its handler is about to run: a web filter after the rate limit filter may have
 * changed the method or the path.
 *
 * <p>Every look over one core shares one set of applied rules ({@link #appliedOf}), so that a core
 * that runs twice on an exchange (one filter called twice, or two filters over the same rules)
 * counts it by each rule once. Where the handler is about to run, the rules are looked at again
 * only if no look over them saw the request as it is then ({@link #sawAsIs}); such a look is kept
 * too, so that a second filter over the same rules does not look once more.
 *
 * @param filter the filter that looked
 * @param core the rules it applied, one set per exchange (see {@link Pinned})
 * @param method the method it saw
 * @param rawPath the raw path it saw
 * @param applied the core's rules that applied to the exchange so far; added to
 * @param earlier the look of a filter that ran before on the same exchange, or null
 */
record Seen(
    ReactiveRateLimitFilter filter,
    EnforcementCore<ReactiveKeySource> core,
    String method,
    String rawPath,
    EnforcementCore.Applied applied,
    Seen earlier) {

  private static final String ATTRIBUTE = Seen.class.getName();

  /**
   * The rules of {@code core} applied to {@code exchange} so far, to add to: the set of an earlier
   * look over {@code core}, or null if none looked.
   */
  static EnforcementCore.Applied appliedOf(
      ServerWebExchange exchange, EnforcementCore<ReactiveKeySource> core) {
    for (Seen look = exchange.getAttribute(ATTRIBUTE); look != null; look = look.earlier) {
      if (look.core == core) {
        return look.applied;
      }
    }
    return null;
  }

  /** Keeps what {@code filter} saw of {@code exchange} and the rules in {@code applied}. */
  static void keep(
      ServerWebExchange exchange,
      ReactiveRateLimitFilter filter,
      EnforcementCore<ReactiveKeySource> core,
      String method,
      String rawPath,
      EnforcementCore.Applied applied) {
    Seen earlier = exchange.getAttribute(ATTRIBUTE);
    exchange
        .getAttributes()
        .put(ATTRIBUTE, new Seen(filter, core, method, rawPath, applied, earlier));
  }

  /** The newest look of {@code filter} at {@code exchange}, or null if it never looked. */
  static Seen latest(ServerWebExchange exchange, ReactiveRateLimitFilter filter) {
    for (Seen look = exchange.getAttribute(ATTRIBUTE); look != null; look = look.earlier) {
      if (look.filter == filter) {
        return look;
      }
    }
    return null;
  }

  /**
   * Whether a look over {@code core} saw {@code request} as it is now (its method and raw path), so
   * that every rule of {@code core} that applies to it was applied then; allocates none.
   */
  static boolean sawAsIs(
      ServerWebExchange exchange,
      EnforcementCore<ReactiveKeySource> core,
      ServerHttpRequest request) {
    for (Seen look = exchange.getAttribute(ATTRIBUTE); look != null; look = look.earlier) {
      if (look.core == core && !look.changed(request)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code request}'s method or raw path differs from what the filter saw. */
  boolean changed(ServerHttpRequest request) {
    return !method.equals(request.getMethod().name())
        || !rawPath.equals(request.getURI().getRawPath());
  }
}
