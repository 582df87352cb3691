package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The keyed limiter's incremental eviction: tracking a new key sweeps empty ones out, and a sweep
 * never keeps its lock, so a clean-up or a full-table sweep on one thread leaves the next
 * full-table request on another free to sweep.
 */
class KeyedSweepTest {

  private static final Limit ONE_PER_10NS = Limit.exact(1, Duration.ofNanos(10));

  private static LocalKeyedRateLimiter<String> keyed(ManualTicker ticker, int maxKeys) {
    return (LocalKeyedRateLimiter<String>)
        KeyedRateLimiter.builder()
            .limit(ONE_PER_10NS)
            .ticker(ticker)
            .maxKeys(maxKeys)
            .<String>build();
  }

  @Test
  void tryAcquire_newKey_sweepsAKeyWhoseWindowHasPassed() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> keyed = keyed(ticker, 100);
    assertThat(keyed.tryAcquire("a")).isTrue();
    ticker.advance(10);
    assertThat(keyed.tryAcquire("b")).isTrue();
    assertThat(keyed.trackedKeys()).isEqualTo(1);
  }

  @Test
  void sweeps_onOneThread_leaveTheFullTableFreeToSweepOnAnother() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> keyed = keyed(ticker, 1);
    assertThat(keyed.tryAcquire("a")).isTrue();
    // Another thread cleans up, then meets the full table and sweeps it, finding nothing to evict.
    CompletableFuture.runAsync(
            () -> {
              keyed.cleanUp();
              assertThat(keyed.tryAcquire("b")).isFalse();
            })
        .orTimeout(10, TimeUnit.SECONDS)
        .join();
    ticker.advance(10);
    // Here the full table's sweep must take the lock the other thread used.
    assertThat(
            CompletableFuture.supplyAsync(() -> keyed.tryAcquire("c"))
                .orTimeout(10, TimeUnit.SECONDS)
                .join())
        .isTrue();
    assertThat(keyed.trackedKeys()).isEqualTo(1);
  }
}
