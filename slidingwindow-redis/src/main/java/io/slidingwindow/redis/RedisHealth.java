package io.slidingwindow.redis;

import io.slidingwindow.internal.Checks;

/**
 * What a probe of the limiter's Redis found ({@link RedisBackend#health(java.time.Duration)}): up,
 * or down with the reason. Immutable.
 *
 * @param up whether Redis ran the probe script, a write to one key of the library's own
 * @param problem the lasting reason it did not, or null when up or when Redis did not answer in
 *     time or could not be reached (then {@code detail} says which)
 * @param detail what Redis replied or why there was no reply; "OK" when up
 */
public record RedisHealth(boolean up, RedisProblem problem, String detail) {

  /**
   * Checks that {@code detail} is present and a healthy result names no problem.
   *
   * @throws IllegalArgumentException if {@code detail} is null, or {@code up} with a {@code
   *     problem}
   */
  public RedisHealth {
    Checks.requireNonNull(detail, "detail");
    if (up && problem != null) {
      throw new IllegalArgumentException("an up result names no problem, was " + problem);
    }
  }

  static RedisHealth healthy() {
    return new RedisHealth(true, null, "OK");
  }

  static RedisHealth down(RedisProblem problem, String detail) {
    return new RedisHealth(false, problem, detail);
  }
}
