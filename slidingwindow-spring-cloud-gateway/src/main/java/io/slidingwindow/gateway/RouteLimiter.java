package io.slidingwindow.gateway;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import java.util.List;
import java.util.function.Supplier;

/**
 * One route's terms, their header names, its limiter and the in-memory limiter of {@link
 * FailurePolicy#LOCAL} (made on first use, with the same plans, shared by every configuration of
 * the same terms), for one bound configuration.
 */
final class RouteLimiter {
  final SlidingWindowRateLimiter.Config config;
  final RouteTerms terms;
  final List<String> policyNames;
  final KeyedRateLimiter<String> limiter;
  private final LocalLimiter local;

  RouteLimiter(
      SlidingWindowRateLimiter.Config config,
      RouteTerms terms,
      List<String> policyNames,
      KeyedRateLimiter<String> limiter,
      Supplier<KeyedRateLimiter<String>> local) {
    this(config, terms, policyNames, limiter, new LocalLimiter(local));
  }

  private RouteLimiter(
      SlidingWindowRateLimiter.Config config,
      RouteTerms terms,
      List<String> policyNames,
      KeyedRateLimiter<String> limiter,
      LocalLimiter local) {
    this.config = config;
    this.terms = terms;
    this.policyNames = policyNames;
    this.limiter = limiter;
    this.local = local;
  }

  /** The route's limits for a key on no plan. */
  List<Limit> limits() {
    return terms.limits();
  }

  /** This limiter, bound to {@code newConfig} of the same terms. */
  RouteLimiter boundTo(SlidingWindowRateLimiter.Config newConfig) {
    return new RouteLimiter(newConfig, terms, policyNames, limiter, local);
  }

  KeyedRateLimiter<String> local() {
    return local.get();
  }

  /** The in-memory limiter of a route, made on first use. Thread-safe. */
  private static final class LocalLimiter {
    private final Supplier<KeyedRateLimiter<String>> create;
    private volatile KeyedRateLimiter<String> limiter;

    LocalLimiter(Supplier<KeyedRateLimiter<String>> create) {
      this.create = create;
    }

    KeyedRateLimiter<String> get() {
      KeyedRateLimiter<String> made = limiter;
      if (made == null) {
        synchronized (this) {
          made = limiter;
          if (made == null) {
            made = create.get();
            limiter = made;
          }
        }
      }
      return made;
    }
  }
}
