package io.slidingwindow.webflux;

import io.slidingwindow.http.RequestKey;
import java.security.Principal;
import org.springframework.web.server.ServerWebExchange;

/**
 * Chooses the key of a request in a reactive application, for a rule given to {@link
 * ReactiveRateLimitFilter.Builder#rule(io.slidingwindow.http.HttpRule, ReactiveKeyResolver)} or a
 * rule whose key is {@code bean:NAME}: the WebFlux counterpart of the servlet {@code KeyResolver}.
 * Return a typed {@link RequestKey} ({@link RequestKey#custom(String)} for a value the application
 * chose; {@link ReactiveClientKeys#of} for the client address), or null to count the request under
 * its client address, as a throw does too.
 *
 * <p>It runs on an event-loop thread for every request the rule matches: it must not block (no I/O,
 * no waiting on a lock held for long), and must be thread-safe.
 */
@FunctionalInterface
public interface ReactiveKeyResolver {

  /**
   * The key of {@code exchange}, or null to count it under its client address.
   *
   * @param principal the authenticated principal, already resolved; null if anonymous
   */
  RequestKey key(ServerWebExchange exchange, Principal principal);
}
