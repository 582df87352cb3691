package io.slidingwindow.webflux.internal;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import java.util.List;
import java.util.function.Supplier;
import org.springframework.core.Ordered;
import org.springframework.web.reactive.HandlerAdapter;
import org.springframework.web.reactive.HandlerResult;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Looks at a request once more where the handler the dispatcher picked for it is about to run: the
 * rate limit filter matched its rules, and looked the handler up, before the web filters after it
 * ran, and one of those may change the request's path or method (Spring's {@code UrlHandlerFilter}
 * taking a trailing slash off, a method override), so that the dispatcher hands the request to a
 * handler the filter never saw. Ahead of every other adapter, it takes every handler another
 * adapter supports, counts the request by each filter rule that applies to it now and did not when
 * the filter looked, and by the {@link RateLimit} of an annotated handler method unless the filter
 * already did (the filter marks the exchange, so no rule counts a request twice), answers a refusal
 * itself, and otherwise hands the request to the next adapter that supports the handler, which
 * invokes it. When no filter has anything to count (the request's method and path are what each
 * filter saw, and the handler carries no {@link RateLimit} it has not counted), the next adapter's
 * result is handed back as it is, without a reactive step of this adapter's own.
 */
public final class RateLimitHandlerAdapter implements HandlerAdapter, Ordered {

  private static final Mono<Boolean> GO_ON = Mono.just(true);
  private static final Mono<Boolean> STOP = Mono.just(false);

  private final Supplier<List<ReactiveRateLimitFilter>> filterBeans;
  private final Supplier<List<HandlerAdapter>> adapterBeans;
  private volatile List<ReactiveRateLimitFilter> filters;
  private volatile List<HandlerAdapter> adapters;

  /**
   * An adapter for the annotations of {@code filters}, handing requests on to the first of {@code
   * adapters} (in order, itself left out) that supports the handler.
   *
   * @param filters the rate limit filters; asked once, when the first request comes
   * @param adapters the application's handler adapters; asked once, when the first request comes
   * @throws IllegalArgumentException if an argument is null
   */
  public RateLimitHandlerAdapter(
      Supplier<List<ReactiveRateLimitFilter>> filters, Supplier<List<HandlerAdapter>> adapters) {
    if (filters == null || adapters == null) {
      throw new IllegalArgumentException(
          "filters and adapters must not be null, were " + filters + " and " + adapters);
    }
    this.filterBeans = filters;
    this.adapterBeans = adapters;
  }

  private List<ReactiveRateLimitFilter> filters() {
    List<ReactiveRateLimitFilter> known = filters;
    if (known == null) {
      known = List.copyOf(filterBeans.get());
      filters = known;
    }
    return known;
  }

  private List<HandlerAdapter> adapters() {
    List<HandlerAdapter> known = adapters;
    if (known == null) {
      known =
          adapterBeans.get().stream().filter(a -> !(a instanceof RateLimitHandlerAdapter)).toList();
      adapters = known;
    }
    return known;
  }

  @Override
  public boolean supports(Object handler) {
    for (ReactiveRateLimitFilter filter : filters()) {
      ReactiveRateLimitAnnotations annotations = ReactiveFilters.annotations(filter);
      if (annotations != null && annotations.annotated(handler)) {
        return true;
      }
    }
    return !filters().isEmpty() && nextOrNull(handler) != null;
  }

  @Override
  public Mono<HandlerResult> handle(ServerWebExchange exchange, Object handler) {
    List<ReactiveRateLimitFilter> all = filters();
    for (int i = 0; i < all.size(); i++) {
      Mono<Boolean> first = ReactiveFilters.atHandler(all.get(i), exchange, handler);
      if (first != null) {
        return countFrom(first, all.subList(i + 1, all.size()), exchange, handler);
      }
    }
    // Nothing to count: the handler's own adapter answers, as if this one were not there.
    HandlerAdapter next = nextOrNull(handler);
    return next != null ? next.handle(exchange, handler) : Mono.error(noAdapter(handler));
  }

  /**
   * Counts the exchange by {@code first}, then by each of {@code rest} in turn while the exchange
   * is let through, and hands it on to the handler once all let it through.
   */
  private Mono<HandlerResult> countFrom(
      Mono<Boolean> first,
      List<ReactiveRateLimitFilter> rest,
      ServerWebExchange exchange,
      Object handler) {
    Mono<Boolean> proceed = first;
    for (ReactiveRateLimitFilter filter : rest) {
      proceed =
          proceed.flatMap(
              go -> {
                if (!go) {
                  return STOP;
                }
                Mono<Boolean> look = ReactiveFilters.atHandler(filter, exchange, handler);
                return look != null ? look : GO_ON;
              });
    }
    return proceed.flatMap(go -> go ? next(handler).handle(exchange, handler) : Mono.empty());
  }

  /** The first adapter after this one that supports {@code handler}. */
  private HandlerAdapter next(Object handler) {
    HandlerAdapter next = nextOrNull(handler);
    if (next == null) {
      throw noAdapter(handler);
    }
    return next;
  }

  private static IllegalStateException noAdapter(Object handler) {
    return new IllegalStateException("no handler adapter supports " + handler);
  }

  private HandlerAdapter nextOrNull(Object handler) {
    for (HandlerAdapter adapter : adapters()) {
      if (adapter.supports(handler)) {
        return adapter;
      }
    }
    return null;
  }

  /** Ahead of the adapters that invoke handler methods. */
  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE;
  }
}
