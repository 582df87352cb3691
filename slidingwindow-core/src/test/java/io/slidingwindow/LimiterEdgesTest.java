package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The in-process limiters at the edges their comparisons draw: the permits every acquire path takes
 * (zero, negative, over the smallest limit, the largest long), the instant a full window's refusals
 * without the lock end, a wait equal to the time left, a clock that steps back, ties and near-ties
 * between limits, and refused attempts counted across several limits.
 */
class LimiterEdgesTest {

  private static final Limit TWO_PER_10NS = Limit.exact(2, Duration.ofNanos(10));

  private static RateLimiter limiter(ManualTicker ticker, Limit... limits) {
    return RateLimiter.builder().limits(List.of(limits)).ticker(ticker).build();
  }

  /** Each way to ask a limiter or keyed limiter for {@code permits}. */
  private static List<Consumer<Long>> acquirePaths() {
    RateLimiter one =
        limiter(new ManualTicker(0), TWO_PER_10NS, Limit.exact(5, Duration.ofNanos(10)));
    KeyedRateLimiter<String> keyed =
        KeyedRateLimiter.builder().limit(TWO_PER_10NS).ticker(new ManualTicker(0)).build();
    return List.of(
        one::tryAcquire,
        one::decide,
        permits -> {
          try {
            one.acquire(permits, Duration.ZERO);
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
        },
        permits -> keyed.tryAcquire("k", permits),
        permits -> keyed.decide("k", permits),
        permits -> keyed.decideAsync("k", permits));
  }

  @Test
  void everyAcquirePath_permitsNotPositiveOrOverTheSmallestLimit_isRejectedNamingTheValue() {
    List<Consumer<Long>> paths = acquirePaths();
    for (int path = 0; path < paths.size(); path++) {
      Consumer<Long> acquire = paths.get(path);
      for (long permits : new long[] {0, -1, Long.MIN_VALUE}) {
        assertThatThrownBy(() -> acquire.accept(permits))
            .as("path %d, %d permits", path, permits)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("permits")
            .hasMessageContaining(String.valueOf(permits));
      }
      for (long permits : new long[] {3, Long.MAX_VALUE}) {
        assertThatThrownBy(() -> acquire.accept(permits))
            .as("path %d, %d permits", path, permits)
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(
                "permits must not exceed the smallest limit, 2, since such a request could never"
                    + " be granted; was "
                    + permits);
      }
      acquire.accept(2L); // the smallest limit itself is a valid request
    }
  }

  @Test
  void tryAcquire_atTheInstantTheFullWindowsOldestRunLeaves_isGranted() {
    ManualTicker ticker = new ManualTicker(0);
    RateLimiter limiter = limiter(ticker, TWO_PER_10NS);
    assertThat(limiter.tryAcquire(2)).isTrue();
    ticker.advance(9);
    assertThat(limiter.tryAcquire()).isFalse();
    ticker.advance(1);
    assertThat(limiter.tryAcquire(2)).isTrue();
  }

  @Test
  void tryAcquire_windowWithRoomLeft_publishesNoRefusal() {
    ManualTicker ticker = new ManualTicker(0);
    RateLimiter limiter = limiter(ticker, TWO_PER_10NS);
    assertThat(limiter.tryAcquire()).isTrue();
    ticker.advance(5);
    assertThat(limiter.tryAcquire()).isTrue();
    assertThat(limiter.tryAcquire()).isFalse();
  }

  @Test
  void tryAcquire_clockBeforeTheOrigin_countsAsTheOrigin() {
    ManualTicker ticker = new ManualTicker(100);
    RateLimiter limiter = limiter(ticker, TWO_PER_10NS);
    ticker.set(50);
    assertThat(limiter.tryAcquire()).isTrue();
    assertThat(limiter.tryAcquire()).isTrue();
    assertThat(limiter.tryAcquire()).isFalse();
    ticker.set(110);
    assertThat(limiter.tryAcquire()).isTrue();
  }

  /**
   * After the window fills by {@code fill}, a refusal without the lock does not record its reading
   * (RateLimiter's class comment): when the clock then steps back, the next decision is measured
   * from the stepped-back time, not from the refusal's.
   */
  private static void assertLockFreeRefusalAfter(Consumer<RateLimiter> fill) {
    ManualTicker ticker = new ManualTicker(0);
    RateLimiter limiter = limiter(ticker, TWO_PER_10NS);
    fill.accept(limiter);
    ticker.set(8);
    assertThat(limiter.tryAcquire()).isFalse();
    ticker.set(3);
    assertThat(limiter.decide(1).retryAfter()).isEqualTo(Duration.ofNanos(7));
  }

  @Test
  void tryAcquire_afterEachWayToFillTheWindow_refusesWithoutTheLock() {
    assertLockFreeRefusalAfter(limiter -> assertThat(limiter.tryAcquire(2)).isTrue());
    assertLockFreeRefusalAfter(limiter -> assertThat(limiter.decide(2).allowed()).isTrue());
    assertLockFreeRefusalAfter(
        limiter -> {
          try {
            assertThat(limiter.acquire(2, Duration.ZERO)).isTrue();
          } catch (InterruptedException e) {
            throw new AssertionError(e);
          }
        });
  }

  @Test
  void decide_measuresTimeFromTheOriginItsBucketsAreAlignedTo() {
    ManualTicker ticker = new ManualTicker(3);
    Limit twoBuckets = Limit.of(1, Duration.ofNanos(10)).withPrecision(Duration.ofNanos(5));
    RateLimiter limiter = limiter(ticker, twoBuckets);
    assertThat(limiter.decide(1).allowed()).isTrue();
    ticker.advance(1);
    // The grant went to bucket 0 of the limiter's own clock, [0, 5), which leaves at 5 + 10 - 1.
    assertThat(limiter.decide(1).retryAfter()).isEqualTo(Duration.ofNanos(13));
  }

  @Test
  void acquire_waitEqualToTheTimeLeft_waitsAndIsGranted() throws InterruptedException {
    ManualTicker ticker = new ManualTicker(0);
    List<Long> sleeps = new ArrayList<>();
    RateLimiter limiter =
        RateLimiter.builder()
            .limit(TWO_PER_10NS)
            .ticker(ticker)
            .sleeper(
                nanos -> {
                  sleeps.add(nanos);
                  ticker.advance(nanos);
                })
            .build();
    assertThat(limiter.tryAcquire(2)).isTrue();
    ticker.advance(4);
    assertThat(limiter.acquire(1, Duration.ofNanos(6))).isTrue();
    assertThat(sleeps).containsExactly(6L);
  }

  /**
   * A full limiter whose sleeper wakes 2 ns late, and at its first wake-up lets another caller take
   * both freed permits first.
   */
  private static RateLimiter fullWithLateWakeUps(List<Long> sleeps) {
    ManualTicker ticker = new ManualTicker(1_000);
    RateLimiter[] self = new RateLimiter[1];
    self[0] =
        RateLimiter.builder()
            .limit(TWO_PER_10NS)
            .ticker(ticker)
            .sleeper(
                nanos -> {
                  sleeps.add(nanos);
                  ticker.advance(nanos + 2);
                  if (sleeps.size() == 1) {
                    assertThat(self[0].tryAcquire(2)).isTrue();
                  }
                })
            .build();
    assertThat(self[0].tryAcquire(2)).isTrue();
    return self[0];
  }

  @Test
  void acquire_afterOversleepingWhileOthersTookThePermits_waitsAgainOnlyWithinTheTimeLeft()
      throws InterruptedException {
    List<Long> sleeps = new ArrayList<>();
    // Waits 10 ns of its 21; then 12 have passed, and the next wait, 10, exceeds the 9 left.
    assertThat(fullWithLateWakeUps(sleeps).acquire(1, Duration.ofNanos(21))).isFalse();
    assertThat(sleeps).containsExactly(10L);
    sleeps.clear();
    // With 22, exactly the next wait is left, and it waits again.
    assertThat(fullWithLateWakeUps(sleeps).acquire(1, Duration.ofNanos(22))).isTrue();
    assertThat(sleeps).containsExactly(10L, 10L);
  }

  @Test
  void decide_limitThatFitsExactly_addsNoWaitToTheOneThatRefuses() {
    ManualTicker ticker = new ManualTicker(0);
    Limit twoPer100 = Limit.exact(2, Duration.ofNanos(100));
    Limit onePer10 = Limit.exact(1, Duration.ofNanos(10));
    RateLimiter limiter = limiter(ticker, twoPer100, onePer10);
    assertThat(limiter.tryAcquire()).isTrue();
    ticker.advance(5);
    Decision refused = limiter.decide(1);
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofNanos(5));
    assertThat(refused.limit()).isEqualTo(onePer10);
  }

  @Test
  void decide_retryAfter_waitsForJustEnoughRunsToLeave() {
    ManualTicker ticker = new ManualTicker(0);
    RateLimiter limiter = limiter(ticker, Limit.exact(3, Duration.ofNanos(100)));
    for (int i = 0; i < 3; i++) {
      assertThat(limiter.tryAcquire()).isTrue();
      ticker.advance(10);
    }
    assertThat(limiter.decide(1).retryAfter()).isEqualTo(Duration.ofNanos(70));
    assertThat(limiter.decide(2).retryAfter()).isEqualTo(Duration.ofNanos(80));
  }

  @Test
  void countRefusedAttempts_severalLimits_recordsTheRefusedAttemptInEach() {
    ManualTicker ticker = new ManualTicker(0);
    RateLimiter limiter =
        RateLimiter.builder()
            .limit(Limit.exact(1, Duration.ofNanos(10)))
            .limit(Limit.exact(5, Duration.ofNanos(100)))
            .countRefusedAttempts(true)
            .ticker(ticker)
            .build();
    assertThat(limiter.tryAcquire()).isTrue();
    ticker.advance(5);
    assertThat(limiter.tryAcquire()).isFalse();
    ticker.advance(5);
    // The grant at 0 has left the 10 ns window, the refused attempt at 5 has not.
    assertThat(limiter.tryAcquire()).isFalse();
    ticker.advance(10);
    assertThat(limiter.decide(1).allowed()).isTrue();
  }

  @Test
  void acquire_countingRefusedAttempts_recordsARefusalThatGivesUp() throws InterruptedException {
    ManualTicker ticker = new ManualTicker(0);
    RateLimiter limiter =
        RateLimiter.builder()
            .limit(Limit.exact(1, Duration.ofNanos(10)))
            .countRefusedAttempts(true)
            .ticker(ticker)
            .build();
    assertThat(limiter.tryAcquire()).isTrue();
    ticker.advance(5);
    assertThat(limiter.acquire(1, Duration.ZERO)).isFalse();
    ticker.advance(5);
    assertThat(limiter.tryAcquire()).isFalse();
  }

  @Test
  void countRefusedAttempts_refusalAfterAFullWindow_keepsTheRunsWithinTheBound() {
    ManualTicker ticker = new ManualTicker(0);
    LocalRateLimiter limiter =
        (LocalRateLimiter)
            RateLimiter.builder()
                .limit(TWO_PER_10NS)
                .countRefusedAttempts(true)
                .ticker(ticker)
                .build();
    assertThat(limiter.tryAcquire()).isTrue();
    ticker.advance(1);
    assertThat(limiter.tryAcquire()).isTrue();
    assertThat(limiter.tryAcquire()).isFalse();
    // The refusal at 1 filled the run at 1 to the limit: the run at 0 is covered and dropped.
    assertThat(limiter.storedRuns()).containsExactly(1);
    ticker.advance(1);
    assertThat(limiter.tryAcquire()).isFalse();
    assertThat(limiter.storedRuns()).containsExactly(2);
    assertThat(limiter.decide(1).retryAfter()).isEqualTo(Duration.ofNanos(10));
  }

  @Test
  void countRefusedAttempts_largestLimitThatCannotOverflowTheSum_isAccepted() {
    long largest = Long.MAX_VALUE / 3;
    assertThat(
            RateLimiter.builder()
                .limit(Limit.of(largest, Duration.ofSeconds(1)))
                .countRefusedAttempts(true)
                .build()
                .tryAcquire(largest))
        .isTrue();
    assertThatThrownBy(
            () ->
                RateLimiter.builder()
                    .limit(Limit.of(largest + 1, Duration.ofSeconds(1)))
                    .countRefusedAttempts(true)
                    .build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "permits must be at most "
                + largest
                + " to count refused attempts, was "
                + (largest + 1));
    assertThat(
            RateLimiter.builder()
                .limit(Limit.of(Long.MAX_VALUE, Duration.ofSeconds(1)))
                .build()
                .tryAcquire(Long.MAX_VALUE))
        .isTrue();
  }

  @Test
  void build_exactLimitOfTheMostRunsSupported_isAccepted() {
    long most = 1L << 28;
    RateLimiter limiter =
        RateLimiter.builder().limit(Limit.exact(most, Duration.ofSeconds(1))).build();
    assertThat(limiter.tryAcquire()).isTrue();
    assertThatThrownBy(
            () -> RateLimiter.builder().limit(Limit.exact(most + 1, Duration.ofSeconds(1))).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("precision:");
  }

  @Test
  void limitsAndText_areTheLimitsAdded() {
    RateLimiter limiter = limiter(new ManualTicker(0), TWO_PER_10NS);
    assertThat(limiter.limits()).containsExactly(TWO_PER_10NS);
    assertThat(limiter).hasToString("RateLimiter[" + TWO_PER_10NS + "]");
    KeyedRateLimiter<String> keyed = KeyedRateLimiter.builder().limit(TWO_PER_10NS).build();
    assertThat(keyed.limits()).containsExactly(TWO_PER_10NS);
    assertThat(keyed.toString()).startsWith("KeyedRateLimiter[" + TWO_PER_10NS + "]");
  }

  @Test
  void cleanUp_keyWithSeveralLimitsWhoseWindowsPassed_isEvicted() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> keyed =
        (LocalKeyedRateLimiter<String>)
            KeyedRateLimiter.builder()
                .limit(TWO_PER_10NS)
                .limit(Limit.exact(5, Duration.ofNanos(20)))
                .ticker(ticker)
                .<String>build();
    assertThat(keyed.tryAcquire("k")).isTrue();
    ticker.advance(10);
    keyed.cleanUp();
    assertThat(keyed.trackedKeys()).isEqualTo(1);
    ticker.advance(10);
    keyed.cleanUp();
    assertThat(keyed.trackedKeys()).isZero();
  }

  @Test
  void decide_newKeyWhileTheTableIsFull_isToldToWaitTheLongestWindow() {
    Limit second = Limit.exact(1, Duration.ofSeconds(1));
    Limit tenSeconds = Limit.exact(1, Duration.ofSeconds(10));
    KeyedRateLimiter<String> keyed =
        KeyedRateLimiter.builder().limit(second).limit(tenSeconds).maxKeys(1).build();
    assertThat(keyed.tryAcquire("a")).isTrue();
    Decision refused = keyed.decide("b", 1);
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(10));
    assertThat(refused.limit()).isEqualTo(tenSeconds);
  }
}
