package io.slidingwindow.gateway;

import io.slidingwindow.Limit;
import io.slidingwindow.spring.boot.web.SlidingWindowHttpProperties.LimitSpec;
import java.time.Duration;

/**
 * A limit a route's configuration was given in code as a {@link Limit}, in the shape of the limits
 * bound from the route's arguments: it stands for that limit, calendar quotas included, which
 * {@code permits}, {@code window} and {@code precision} cannot describe. Its getters show the
 * limit's figures (a calendar quota's window is the longest its period can last); it cannot be
 * changed.
 */
final class GivenLimit extends LimitSpec {

  private final Limit limit;

  /**
   * @throws IllegalArgumentException if {@code limit} is null
   */
  GivenLimit(Limit limit) {
    if (limit == null) {
      throw new IllegalArgumentException("limit must not be null");
    }
    this.limit = limit;
    super.setPermits(limit.permits());
    super.setWindow(limit.window());
    super.setPrecision(limit.precision());
  }

  /** The limit given, whatever {@code prefix}: it was checked when it was made. */
  @Override
  public Limit toLimit(String prefix) {
    return limit;
  }

  @Override
  public void setPermits(Long permits) {
    throw unchangeable();
  }

  @Override
  public void setWindow(Duration window) {
    throw unchangeable();
  }

  @Override
  public void setPrecision(Duration precision) {
    throw unchangeable();
  }

  private UnsupportedOperationException unchangeable() {
    return new UnsupportedOperationException("a limit given as " + limit + " cannot be changed");
  }

  @Override
  public String toString() {
    return limit.toString();
  }
}
