package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateLimiterTest {

  private static final long SECOND = 1_000_000_000L;

  @Test
  void build_withoutLimits_isRejected() {
    assertThatThrownBy(() -> RateLimiter.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limits");
  }

  @Test
  void builder_nullArguments_areRejectedNamingTheParameter() {
    assertThatThrownBy(() -> RateLimiter.builder().ticker(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ticker must not be null");
    assertThatThrownBy(() -> RateLimiter.builder().limit(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limit must not be null");
    assertThatThrownBy(() -> RateLimiter.builder().limits(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("limits must not be null");
  }

  @Test
  void build_exactLimitTooLargeForMemory_isRejectedNamingPrecision() {
    Limit huge = Limit.exact(1L << 40, Duration.ofHours(1));

    assertThatThrownBy(() -> RateLimiter.builder().limit(huge).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("precision:")
        .hasMessageContaining("choose a coarser precision");
  }

  @Test
  void tryAcquire_grantsUpToTheLimitThenRefusesUntilTheWindowHasPassed() {
    ManualTicker ticker = new ManualTicker(Long.MAX_VALUE - 5);
    RateLimiter limiter =
        RateLimiter.builder().limit(Limit.exact(3, Duration.ofSeconds(1))).ticker(ticker).build();

    assertThat(limiter.tryAcquire()).isTrue();
    assertThat(limiter.tryAcquire(2)).isTrue();
    assertThat(limiter.tryAcquire()).isFalse();
    ticker.advance(SECOND - 1); // the clock wraps past Long.MAX_VALUE here
    assertThat(limiter.tryAcquire()).isFalse();
    ticker.advance(1);
    assertThat(limiter.tryAcquire(3)).isTrue();
  }

  @Test
  void decide_refusal_reportsBindingLimitRetryAfterAndReset() {
    ManualTicker ticker = new ManualTicker(0);
    Limit perSecond = Limit.exact(5, Duration.ofSeconds(1));
    Limit perMinute = Limit.exact(6, Duration.ofMinutes(1));
    RateLimiter limiter =
        RateLimiter.builder().limit(perSecond).limit(perMinute).ticker(ticker).build();

    Decision first = limiter.decide(4);
    assertThat(first.allowed()).isTrue();
    assertThat(first.remaining()).isEqualTo(1);
    assertThat(first.limit()).isEqualTo(perSecond);
    ticker.advance(SECOND);
    Decision second = limiter.decide(2);
    assertThat(second.allowed()).isTrue();
    assertThat(second.remaining()).isZero();
    assertThat(second.limit()).isEqualTo(perMinute);
    assertThat(second.resetAfter()).isEqualTo(Duration.ofMinutes(1));

    Decision refused = limiter.decide(1);
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.limit()).isEqualTo(perMinute);
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofMinutes(1).minusSeconds(1));
    assertThat(refused.resetAfter()).isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void acquire_waitsExactlyRetryAfterWhenItFitsTheTimeout() throws InterruptedException {
    ManualTicker ticker = new ManualTicker(-SECOND);
    List<Long> sleeps = new ArrayList<>();
    RateLimiter limiter =
        RateLimiter.builder()
            .limit(Limit.exact(2, Duration.ofSeconds(1)))
            .ticker(ticker)
            .sleeper(
                nanos -> {
                  sleeps.add(nanos);
                  ticker.advance(nanos);
                })
            .build();
    assertThat(limiter.tryAcquire(2)).isTrue();
    ticker.advance(SECOND / 4);

    assertThat(limiter.acquire(1, Duration.ofSeconds(1))).isTrue();

    assertThat(sleeps).containsExactly(3 * SECOND / 4);
  }

  @Test
  void acquire_retryAfterBeyondTimeout_returnsFalseWithoutWaiting() throws InterruptedException {
    ManualTicker ticker = new ManualTicker(0);
    List<Long> sleeps = new ArrayList<>();
    RateLimiter limiter =
        RateLimiter.builder()
            .limit(Limit.exact(1, Duration.ofSeconds(1)))
            .ticker(ticker)
            .sleeper(sleeps::add)
            .build();
    assertThat(limiter.tryAcquire()).isTrue();

    assertThat(limiter.acquire(1, Duration.ofMillis(999))).isFalse();
    assertThat(limiter.acquire(1, Duration.ofMillis(-5))).isFalse();

    assertThat(sleeps).isEmpty();
  }

  @Test
  void acquire_permitsTakenByOthersWhileWaiting_waitsAgainWithinTheTimeout()
      throws InterruptedException {
    ManualTicker ticker = new ManualTicker(0);
    List<Long> sleeps = new ArrayList<>();
    RateLimiter[] self = new RateLimiter[1];
    self[0] =
        RateLimiter.builder()
            .limit(Limit.exact(1, Duration.ofSeconds(1)))
            .ticker(ticker)
            .sleeper(
                nanos -> {
                  sleeps.add(nanos);
                  ticker.advance(nanos);
                  if (sleeps.size() == 1) {
                    assertThat(self[0].tryAcquire())
                        .isTrue(); // another caller takes the permit first
                  }
                })
            .build();
    assertThat(self[0].tryAcquire()).isTrue();

    assertThat(self[0].acquire(1, Duration.ofSeconds(3))).isTrue();

    assertThat(sleeps).containsExactly(SECOND, SECOND);
  }

  @Test
  void acquire_interrupted_throwsAndGrantsNothing() {
    ManualTicker ticker = new ManualTicker(0);
    RateLimiter limiter =
        RateLimiter.builder()
            .limit(Limit.exact(1, Duration.ofSeconds(1)))
            .ticker(ticker)
            .sleeper(
                nanos -> {
                  throw new InterruptedException("interrupted while waiting");
                })
            .build();
    assertThat(limiter.tryAcquire()).isTrue();

    assertThatThrownBy(() -> limiter.acquire(1, Duration.ofSeconds(5)))
        .isInstanceOf(InterruptedException.class);
    ticker.advance(SECOND);
    assertThat(limiter.decide(1).remaining())
        .as("nothing was granted to the interrupted caller")
        .isZero();
  }

  @Test
  void tryAcquire_clockStepsBackAfterAGrant_isDecidedAtTheLatestTime() {
    ManualTicker ticker = new ManualTicker(0);
    RateLimiter limiter =
        RateLimiter.builder().limit(Limit.exact(2, Duration.ofNanos(10))).ticker(ticker).build();
    assertThat(limiter.tryAcquire(2)).isTrue(); // at 0
    ticker.set(5);
    assertThat(limiter.tryAcquire()).as("full until 10").isFalse();
    ticker.set(12);
    assertThat(limiter.tryAcquire()).isTrue(); // the grants at 0 have left

    ticker.set(9); // back: no time passed, so this is still 12, with one permit left
    assertThat(limiter.tryAcquire()).as("decided at 12, not refused as at 9").isTrue();
    assertThat(limiter.tryAcquire()).as("now full until 22").isFalse();
  }

  @Test
  void acquire_unboundedTimeoutAndAClockThatStepsBack_keepsWaiting() throws InterruptedException {
    ManualTicker ticker = new ManualTicker(0);
    List<Long> sleeps = new ArrayList<>();
    RateLimiter limiter =
        RateLimiter.builder()
            .limit(Limit.exact(1, Duration.ofSeconds(1)))
            .ticker(ticker)
            .sleeper(
                nanos -> {
                  sleeps.add(nanos);
                  ticker.advance(
                      sleeps.size() == 1 ? -1 : nanos + 1); // first wake-up reads 1 ns early
                })
            .build();
    assertThat(limiter.tryAcquire()).isTrue();

    assertThat(limiter.acquire(1, Duration.ofSeconds(Long.MAX_VALUE))).isTrue();
    assertThat(sleeps).hasSize(2);
  }

  /**
   * Five rounds of 200 000 calls after a warm-up: at least one round must allocate nothing at all.
   * One object per call would show in every round; a round may still see a few hundred bytes of JVM
   * noise (class loading, compilation), so not every round must be clean.
   */
  @Test
  void tryAcquire_warmLimiter_allocatesNothing() {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    ManualTicker ticker = new ManualTicker(0);
    RateLimiter limiter =
        RateLimiter.builder()
            .limit(Limit.of(1_000, Duration.ofMillis(10)))
            .limit(Limit.of(5_000, Duration.ofSeconds(1)))
            .ticker(ticker)
            .build();
    long granted = 0;
    List<Long> allocatedPerRound = new ArrayList<>();
    for (int round = 0; round < 6; round++) {
      long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < 200_000; i++) {
        if (limiter.tryAcquire()) {
          granted++;
        }
        ticker.advance(1_000);
      }
      if (round > 0) { // the first round warms up and grows the rings to their steady size
        allocatedPerRound.add(threads.getCurrentThreadAllocatedBytes() - before);
      }
    }
    assertThat(allocatedPerRound).as("bytes allocated per round of 200 000 calls").contains(0L);
    assertThat(allocatedPerRound).allMatch(bytes -> bytes < 200_000, "less than a byte per call");
    assertThat(granted).isPositive();
  }

  @Test
  void acquire_invalidArguments_areRejected() {
    RateLimiter limiter = RateLimiter.builder().limit(Limit.of(3, Duration.ofSeconds(1))).build();

    assertThatThrownBy(() -> limiter.acquire(1, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeout must not be null");
    assertThatThrownBy(() -> limiter.acquire(4, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits");
  }

  /**
   * A ring buffer of grant timestamps would hold 10 000 000 longs (80 MB) for this limit; the
   * bucketed ring holds at most ceil(1 s / 1 ms) + 1 = 1001 runs of 16 bytes, whatever the rate.
   */
  @Test
  void saturatedTenMillionPerSecond_storesAtMostBucketsPlusOneRuns() {
    ManualTicker ticker = new ManualTicker(123_456_789);
    Limit limit = Limit.of(10_000_000, Duration.ofSeconds(1));
    LocalRateLimiter limiter =
        (LocalRateLimiter) RateLimiter.builder().limit(limit).ticker(ticker).build();
    long granted = 0;
    int mostRuns = 0;
    // Three seconds in steps of 37 µs, each step asking for more than its share.
    for (long t = 0; t < 3 * SECOND; t += 37_000) {
      for (int i = 0; i < 3; i++) {
        if (limiter.tryAcquire(200)) {
          granted += 200;
        }
      }
      mostRuns = Math.max(mostRuns, limiter.storedRuns()[0]);
      ticker.advance(37_000);
    }
    // Then exactly the limit's rate, one request per bucket: every bucket of the window holds a
    // run.
    for (long t = 0; t < 3 * SECOND; t += 1_000_000) {
      limiter.tryAcquire(10_000);
      mostRuns = Math.max(mostRuns, limiter.storedRuns()[0]);
      ticker.advance(1_000_000);
    }

    assertThat(limit.maxStoredRuns()).isEqualTo(1_001);
    assertThat(mostRuns).isBetween(1_000, 1_001);
    assertThat(granted)
        .as("saturated: about 10 million per second for 3 s")
        .isGreaterThan(29_000_000L);
  }

  @Test
  void exactLimit_storesOneRunPerDistinctInstantAndAtMostPermits() {
    ManualTicker ticker = new ManualTicker(0);
    LocalRateLimiter limiter =
        (LocalRateLimiter)
            RateLimiter.builder()
                .limit(Limit.exact(1_000, Duration.ofSeconds(1)))
                .ticker(ticker)
                .build();

    for (int i = 0; i < 500; i++) {
      assertThat(limiter.tryAcquire()).isTrue(); // one instant
    }
    assertThat(limiter.storedRuns()).containsExactly(1);
    for (int i = 0; i < 2_000; i++) {
      ticker.advance(1_000);
      limiter.tryAcquire();
    }
    assertThat(limiter.storedRuns()[0]).isLessThanOrEqualTo(1_000).isGreaterThanOrEqualTo(500);
  }

  @Test
  void countingRefusals_exactLimit_storesAtMostPermitsRuns() {
    ManualTicker ticker = new ManualTicker(0);
    LocalRateLimiter limiter =
        (LocalRateLimiter)
            RateLimiter.builder()
                .limit(Limit.exact(3, Duration.ofSeconds(1)))
                .countRefusedAttempts(true)
                .ticker(ticker)
                .build();
    int mostRuns = 0;
    for (int i = 0; i < 2_000; i++) {
      limiter.tryAcquire();
      mostRuns = Math.max(mostRuns, limiter.storedRuns()[0]);
      ticker.advance(1_000_000); // 1000 attempts per window, each at its own instant
    }
    assertThat(mostRuns).isEqualTo(3);
  }

  @Test
  void countingRefusals_aClientThatKeepsCallingStaysRefused() {
    ManualTicker ticker = new ManualTicker(0);
    Limit limit = Limit.exact(2, Duration.ofSeconds(1));
    RateLimiter penalised =
        RateLimiter.builder().limit(limit).countRefusedAttempts(true).ticker(ticker).build();
    RateLimiter plain = RateLimiter.builder().limit(limit).ticker(ticker).build();
    for (int i = 0; i < 3; i++) {
      penalised.tryAcquire();
      plain.tryAcquire();
    }
    ticker.advance(SECOND / 2);
    for (int i = 0; i < 2; i++) {
      assertThat(penalised.tryAcquire()).isFalse();
      assertThat(plain.tryAcquire()).isFalse();
    }
    ticker.advance(SECOND / 2);

    assertThat(plain.tryAcquire()).as("the two grants at 0 have left").isTrue();
    assertThat(penalised.tryAcquire())
        .as("the two refused attempts at 0.5 s still count")
        .isFalse();
  }
}
