package io.slidingwindow.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * A servlet filter that limits requests by rules and answers 429 Too Many Requests; see {@link
 * RateLimitEnforcer} for what it does with each request and what it writes.
 *
 * <pre>{@code
 * RateLimitFilter filter = new RateLimitFilter(RateLimitEnforcer.builder()
 *     .rule(HttpRule.builder("product").path("/v1/product/**")
 *         .limit(Limit.of(500, Duration.ofSeconds(2)))
 *         .limit(Limit.of(2000, Duration.ofSeconds(10)))
 *         .limit(Limit.of(10000, Duration.ofSeconds(60)))
 *         .build(), KeyResolver.principal(ClientIpResolver.direct()))
 *     .rateLimitHeaders(true)
 *     .build());
 * }</pre>
 *
 * <p>A rule that counts only some statuses ({@link io.slidingwindow.http.HttpRule#countStatuses()})
 * is settled when the chain returns, with the response's status (500 if an exception escaped it),
 * or, for a request that started asynchronous processing, when that completes ({@link
 * RateLimitEnforcer#settle}); in an include dispatch, by the dispatch around it, whose handler may
 * still change the status; in a forward dispatch, by this filter's dispatch around it if there is
 * one, else by the forward itself when it returns (a filter ordered before this one forwarded).
 *
 * <p>The rules see the request as it reaches this filter. A filter after it that changes the
 * request's method or path (a method override, a path rewrite) can take it past a rule that applies
 * to what the handler gets; {@link RateLimitEnforcer#recheck}, called where the handler is about to
 * run (the Spring Boot starter does so before every Spring MVC handler), counts the request by such
 * rules then.
 *
 * <p>Requests that are not HTTP pass untouched. Thread-safe.
 */
public final class RateLimitFilter implements Filter {

  private final RateLimitEnforcer enforcer;
  private final Supplier<RateLimitEnforcer> enforcers;

  /**
   * Creates a filter applying {@code enforcer}'s rules.
   *
   * @throws IllegalArgumentException if {@code enforcer} is null
   */
  public RateLimitFilter(RateLimitEnforcer enforcer) {
    if (enforcer == null) {
      throw new IllegalArgumentException("enforcer must not be null");
    }
    this.enforcer = enforcer;
    this.enforcers = () -> enforcer;
  }

  /**
   * Creates a filter applying, to each request, the rules of the enforcer {@code enforcers} gives
   * at that moment, so that rules can be replaced while the filter serves (a configuration reload).
   * It must never give null. A request keeps the enforcer it first got from {@code enforcers} in
   * all its dispatches (forward, include, error and async, if the filter is registered for them)
   * and in every pass of a filter built on this same {@code enforcers} instance: the rules it
   * started with finish it, and a rule that a reload kept does not count it again. Two suppliers
   * are kept apart even if they give the same rules (two {@code new RateLimitFilter(rules::get)}
   * make two): after a reload between the passes of their filters, the second counts the request by
   * the new rules, a rule that the reload kept a second time. An enforcer {@link
   * RateLimitEnforcer#following following} this same {@code enforcers} instance, called by the
   * application, shares the keep with the filter.
   *
   * @throws IllegalArgumentException if {@code enforcers} is null
   */
  public RateLimitFilter(Supplier<RateLimitEnforcer> enforcers) {
    if (enforcers == null) {
      throw new IllegalArgumentException("enforcers must not be null");
    }
    this.enforcer = RateLimitEnforcer.following(enforcers);
    this.enforcers = enforcers;
  }

  /** The enforcer this filter applies now. */
  public RateLimitEnforcer enforcer() {
    return enforcers.get();
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (!(request instanceof HttpServletRequest http
        && response instanceof HttpServletResponse httpResponse)) {
      chain.doFilter(request, response);
      return;
    }
    if (!enforcer.enforce(http, httpResponse)) {
      return;
    }
    boolean around = !Look.isNested(http); // a forward inside then leaves settling to this one
    Object mark = around ? Look.settlerAround(http, Boolean.TRUE) : null;
    Throwable failure = null;
    try {
      chain.doFilter(request, response);
    } catch (IOException | ServletException | RuntimeException | Error e) {
      failure = e;
      throw e;
    } finally {
      if (around) {
        Look.settlerAround(http, mark);
      }
      try {
        RateLimitEnforcer.settle(http, httpResponse, failure);
      } catch (Error e) {
        if (failure == null) {
          throw e;
        }
        if (e != failure) {
          failure.addSuppressed(e); // the chain's own failure goes on, not lost behind a refund's
        }
      }
    }
  }
}
