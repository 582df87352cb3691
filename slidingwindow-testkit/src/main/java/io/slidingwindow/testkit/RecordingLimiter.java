package io.slidingwindow.testkit;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * A limiter that answers as the one it wraps and adds every key it is asked to count to a
 * collection the test reads: which key a request was counted under, as the backend saw it.
 */
public final class RecordingLimiter implements KeyedRateLimiter<String> {

  private final KeyedRateLimiter<String> windows;
  private final Collection<String> keys;

  /**
   * Answers as {@code windows}; adds each key of {@link #tryAcquire} and {@link #decide} to {@code
   * keys}, which must take additions from any thread.
   */
  public RecordingLimiter(KeyedRateLimiter<String> windows, Collection<String> keys) {
    this.windows = Objects.requireNonNull(windows, "windows");
    this.keys = Objects.requireNonNull(keys, "keys");
  }

  @Override
  public boolean tryAcquire(String key, long permits) {
    keys.add(key);
    return windows.tryAcquire(key, permits);
  }

  @Override
  public Decision decide(String key, long permits) {
    keys.add(key);
    return windows.decide(key, permits);
  }

  @Override
  public List<Limit> limits() {
    return windows.limits();
  }
}
