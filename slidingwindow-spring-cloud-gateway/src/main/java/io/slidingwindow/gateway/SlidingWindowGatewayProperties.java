package io.slidingwindow.gateway;

import io.slidingwindow.FailurePolicy;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Settings of the gateway's {@link SlidingWindowRateLimiter} shared by every route, under {@code
 * slidingwindow.gateway}. Each route's limits are arguments of its {@code RequestRateLimiter}
 * filter (see {@link SlidingWindowRateLimiter}); where the windows live (memory or Redis) follows
 * {@code slidingwindow.redis.*} and {@code spring.data.redis.*}, as for the rest of the starter.
 */
@ConfigurationProperties(prefix = SlidingWindowGatewayProperties.PREFIX)
public class SlidingWindowGatewayProperties {

  /** The prefix of every property here. */
  public static final String PREFIX = "slidingwindow.gateway";

  /** Whether the limiter bean is registered. */
  private boolean enabled = true;

  /**
   * How long a decision may take before the failure policy answers. A Redis limiter's own command
   * timeout (slidingwindow.redis.command-timeout, 50 ms by default) answers first; this bounds
   * everything else.
   */
  private Duration timeout = SlidingWindowRateLimiter.DEFAULT_TIMEOUT;

  /**
   * What answers a decision that failed or took longer than the timeout: local (an in-memory
   * limiter per route with its limits, the default), allow or refuse.
   */
  private FailurePolicy onFailure = FailurePolicy.DEFAULT;

  /** Whether responses carry the draft-10 RateLimit-Policy and RateLimit headers. */
  private boolean rateLimitHeaders = true;

  /** The most keys each route tracks in memory (the in-process backend only). */
  private long maxKeysPerRoute = 100_000;

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public Duration getTimeout() {
    return timeout;
  }

  public void setTimeout(Duration timeout) {
    this.timeout = timeout;
  }

  public FailurePolicy getOnFailure() {
    return onFailure;
  }

  public void setOnFailure(FailurePolicy onFailure) {
    this.onFailure = onFailure;
  }

  public boolean isRateLimitHeaders() {
    return rateLimitHeaders;
  }

  public void setRateLimitHeaders(boolean rateLimitHeaders) {
    this.rateLimitHeaders = rateLimitHeaders;
  }

  public long getMaxKeysPerRoute() {
    return maxKeysPerRoute;
  }

  public void setMaxKeysPerRoute(long maxKeysPerRoute) {
    this.maxKeysPerRoute = maxKeysPerRoute;
  }
}
