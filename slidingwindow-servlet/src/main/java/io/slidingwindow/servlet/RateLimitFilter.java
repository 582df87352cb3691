package io.slidingwindow.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * A servlet filter that limits requests by rules and answers 429 Too Many Requests; see {@link
 * RateLimitEnforcer} for what it does with each request and what it writes.
 *
 * <pre>{@code
 * RateLimitFilter filter = new RateLimitFilter(RateLimitEnforcer.builder()
 *     .rule(RateLimitRule.builder("product").path("/v1/product/**")
 *         .limit(Limit.of(500, Duration.ofSeconds(2)))
 *         .limit(Limit.of(2000, Duration.ofSeconds(10)))
 *         .limit(Limit.of(10000, Duration.ofSeconds(60)))
 *         .build())
 *     .rateLimitHeaders(true)
 *     .build());
 * }</pre>
 *
 * <p>Requests that are not HTTP pass untouched. Thread-safe.
 */
public final class RateLimitFilter implements Filter {

  private final RateLimitEnforcer enforcer;

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
  }

  /** The enforcer this filter applies. */
  public RateLimitEnforcer enforcer() {
    return enforcer;
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (request instanceof HttpServletRequest http
        && response instanceof HttpServletResponse httpResponse
        && !enforcer.enforce(http, httpResponse)) {
      return;
    }
    chain.doFilter(request, response);
  }
}
