package io.slidingwindow.webflux.internal;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpReply;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import java.lang.invoke.MethodHandles;
import java.util.function.Supplier;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Makes {@link ReactiveRateLimitFilter}s of the parts the Spring Boot starter wires (rules rebuilt
 * on reload, {@link ReactiveRateLimitAnnotations}), which the filter's public builder does not
 * take, and reads those parts back, through the access the filter hands over to {@link
 * FilterHandover} when its class is initialized.
 */
public final class ReactiveFilters {

  private ReactiveFilters() {}

  /**
   * A filter of the rules {@code cores} gives, then of the annotations, if any. {@code cores} is
   * asked once per exchange, so that a reload takes effect at the next one: the rules it gave for
   * an exchange first are kept in an exchange attribute and serve every later pass over the
   * exchange of a filter over {@code cores} (the filter called again, or two filters over it), so
   * that a rule a reload kept does not count the exchange twice.
   *
   * @param cores the rules in service; {@link ReactiveKeys#resolver} makes their key functions
   * @param addresses how the client address is found
   * @param annotations the annotated handler methods' rules, or null for none
   * @param order the filter's order among the application's web filters
   * @throws IllegalArgumentException if {@code cores} or {@code addresses} is null
   */
  public static ReactiveRateLimitFilter filter(
      Supplier<EnforcementCore<ReactiveKeySource>> cores,
      ClientAddresses addresses,
      ReactiveRateLimitAnnotations annotations,
      int order) {
    return access().filter(cores, addresses, annotations, order);
  }

  /** The annotations {@code filter} enforces, or null if none (a filter from its builder). */
  public static ReactiveRateLimitAnnotations annotations(ReactiveRateLimitFilter filter) {
    return access().annotations(filter);
  }

  /**
   * Counts {@code exchange}, where {@code handler} (the handler the dispatcher picked) is about to
   * run, by each rule of {@code filter} that applies to the request as it is now and did not when
   * the filter looked, and by the rule of an annotated {@code handler} unless {@code filter}
   * already counted it by that rule: true to go on to the handler, false once the exchange was
   * answered with the refusal. Null, given at once without allocating, when there is nothing to
   * count: the request's method and raw path are those the filter saw, and {@code handler} carries
   * no {@code @RateLimit} the exchange was not counted by.
   */
  public static Mono<Boolean> atHandler(
      ReactiveRateLimitFilter filter, ServerWebExchange exchange, Object handler) {
    return access().atHandler(filter, exchange, handler);
  }

  /**
   * Ends {@code exchange} with {@code reply} as the filter ends its own (status, headers, body,
   * written from Reactor's parallel scheduler so that a kept-alive connection is read again): for a
   * web filter of another module that answers as the rate limit filter does, such as the gateway's
   * path firewall.
   */
  public static Mono<Void> write(ServerWebExchange exchange, HttpReply reply) {
    return access().write(exchange, reply);
  }

  /** The filter's access: only the filter's class installs one, so its type is the filter's. */
  @SuppressWarnings("unchecked")
  private static FilterHandover.Access<ReactiveRateLimitFilter> access() {
    FilterHandover.Access<?> current = FilterHandover.installed();
    if (current == null) {
      try {
        MethodHandles.lookup().ensureInitialized(ReactiveRateLimitFilter.class);
      } catch (IllegalAccessException e) {
        throw new IllegalStateException("cannot initialize " + ReactiveRateLimitFilter.class, e);
      }
      current = FilterHandover.installed();
    }
    return (FilterHandover.Access<ReactiveRateLimitFilter>) current;
  }
}
