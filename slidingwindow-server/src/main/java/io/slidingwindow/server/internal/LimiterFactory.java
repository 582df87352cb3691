package io.slidingwindow.server.internal;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import java.time.Duration;
import java.util.List;

/** Builds the keyed limiter of each rule: in this process's memory, or on Redis. */
public interface LimiterFactory {

  /**
   * Builds a limiter of {@code limits}.
   *
   * @param failureMode what answers while a shared store fails (in memory: unused)
   * @throws IllegalArgumentException if the limits cannot be counted by this store
   */
  KeyedRateLimiter<String> create(List<Limit> limits, FailureMode failureMode);

  /** In-process limiters on {@code ticker}, each tracking at most {@code maxKeys} keys. */
  static LimiterFactory local(Ticker ticker, long maxKeys) {
    return new LimiterFactory() {
      @Override
      public KeyedRateLimiter<String> create(List<Limit> limits, FailureMode failureMode) {
        return KeyedRateLimiter.builder().limits(limits).ticker(ticker).maxKeys(maxKeys).build();
      }

      @Override
      public String toString() {
        return "in memory";
      }
    };
  }

  /**
   * Limiters on Redis through {@code backend}, sharing counts with every instance that uses the
   * same Redis and limits. Their clock is the Redis server's unless {@code clientTime} is given.
   * Each call waits for Redis as {@code calls} says. The {@link FailureMode#LOCAL} fallback counts
   * in memory, through {@code local}.
   */
  static LimiterFactory redis(
      RedisBackend backend, Ticker clientTime, RedisCalls calls, LimiterFactory local) {
    return new LimiterFactory() {
      @Override
      public KeyedRateLimiter<String> create(List<Limit> limits, FailureMode failureMode) {
        RedisRateLimiter.Builder builder =
            RedisRateLimiter.builder(backend).limits(limits).commandTimeout(calls.commandTimeout());
        if (calls.breakerFailures() > 0) {
          builder.circuitBreaker(calls.breakerFailures(), calls.breakerOpenFor());
        }
        if (clientTime != null) {
          builder.clientTime(clientTime);
        }
        switch (failureMode) {
          case OPEN -> builder.failurePolicy(FailurePolicy.ALLOW);
          case CLOSED -> builder.failurePolicy(FailurePolicy.REFUSE);
          case LOCAL ->
              builder
                  .failurePolicy(FailurePolicy.LOCAL)
                  .fallback(local.create(limits, failureMode));
        }
        return builder.build();
      }

      @Override
      public String toString() {
        return "on " + backend + ", " + calls;
      }
    };
  }

  /**
   * How limiters call Redis: the command timeout, and the circuit breaker ({@code breakerFailures}
   * zero for the library's default, then {@code breakerOpenFor} is unused).
   */
  record RedisCalls(Duration commandTimeout, int breakerFailures, Duration breakerOpenFor) {

    @Override
    public String toString() {
      return "command timeout "
          + commandTimeout.toMillis()
          + " ms"
          + (breakerFailures > 0
              ? ", breaker open after " + breakerFailures + " failures for " + breakerOpenFor
              : "");
    }
  }
}
