package io.slidingwindow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.assertj.core.data.Percentage;
import org.junit.jupiter.api.Test;

/**
 * The scenarios every limiter backend must pass, checked against {@link SlidingLogOracle}. A
 * backend's test extends this class and says how to build a limiter on a given clock; local and
 * Redis limiters thus face the same schedules.
 *
 * <p>Property tests draw random and adversarial {@link Schedule}s (jqwik prints the seed of a
 * failing run, and a failure reproduces from it). Every time is driven by a {@link FakeTicker};
 * nothing sleeps.
 */
public abstract class RateLimiterConformance {

  private static final AtomicLong KEYS = new AtomicLong();

  /**
   * Builds a limiter of {@code limits} whose clock is {@code ticker}. Each call must give a limiter
   * whose keys share no state with earlier ones, or the kit's keys must be enough to isolate them
   * (every scenario uses keys it has never used before).
   */
  protected abstract KeyedRateLimiter<String> newLimiter(
      List<Limit> limits, boolean countRefusedAttempts, Ticker ticker);

  /** The finest time unit the backend resolves; every generated time is a multiple of it. */
  protected long tickNanos() {
    return 1;
  }

  /**
   * Whether the property schedules step the clock back now and then, expecting every decision to be
   * made at the latest reading so far. A backend that handles a backward step more conservatively
   * (refusing at least what it would refuse at the latest reading, but measuring from an earlier
   * recorded time) returns false and says so in its documentation; {@link
   * #clockGoingBackwards_isTakenAsNoTimePassing} still runs for it.
   */
  protected boolean decidesAtLatestReading() {
    return true;
  }

  /** A key no scenario has used. */
  protected static String freshKey() {
    return "conformance-" + KEYS.incrementAndGet();
  }

  /** Exact schedules whose clock sometimes steps back. */
  @Provide
  Arbitrary<Schedule> exactSchedules() {
    return Arbitraries.randomValue(
        random -> Schedule.random(random, tickNanos(), true, decidesAtLatestReading()));
  }

  /** Bucketed schedules whose clock sometimes steps back. */
  @Provide
  Arbitrary<Schedule> bucketedSchedules() {
    return Arbitraries.randomValue(
        random -> Schedule.random(random, tickNanos(), false, decidesAtLatestReading()));
  }

  /** Bucketed schedules whose clock only moves forward. */
  @Provide
  Arbitrary<Schedule> forwardSchedules() {
    return Arbitraries.randomValue(random -> Schedule.random(random, tickNanos(), false, false));
  }

  @Property(tries = 150)
  void exactLimits_decideAsTheExactLog(@ForAll("exactSchedules") Schedule schedule) {
    runExact(schedule, false);
  }

  @Property(tries = 100)
  void exactLimitsCountingRefusals_decideAsTheExactLogOfAttempts(
      @ForAll("exactSchedules") Schedule schedule) {
    runExact(schedule, true);
  }

  @Property(tries = 150)
  void bucketedLimits_neverExceedAnyWindowAndRefuseOnlyWhatTheLogOverWPlusPRefuses(
      @ForAll("bucketedSchedules") Schedule schedule) {
    runBucketed(schedule, false);
  }

  @Property(tries = 60)
  void bucketedLimitsCountingRefusals_neverExceedAnyWindow(
      @ForAll("bucketedSchedules") Schedule schedule) {
    runBucketed(schedule, true);
  }

  @Property(tries = 100)
  void refusal_retryAfterIsTheEarliestGrant(@ForAll("forwardSchedules") Schedule schedule) {
    FakeTicker ticker = new FakeTicker(schedule.originNanos());
    KeyedRateLimiter<String> limiter = newLimiter(schedule.limits(), false, ticker);
    String key = freshKey();
    long tick = tickNanos();
    for (int i = 0; i < schedule.size(); i++) {
      ticker.advance(schedule.gapsNanos().get(i));
      long permits = schedule.permits().get(i);
      Decision decision = limiter.decide(key, permits);
      if (!decision.allowed()) {
        long wait = decision.retryAfter().toNanos();
        assertThat(wait).as("retryAfter of a refusal, %s at request %d", schedule, i).isPositive();
        ticker.advance(wait - tick);
        assertThat(limiter.tryAcquire(key, permits))
            .as("one tick before retryAfter %d ns, %s at request %d", wait, schedule, i)
            .isFalse();
        ticker.advance(tick);
        assertThat(limiter.tryAcquire(key, permits))
            .as("at retryAfter %d ns, %s at request %d", wait, schedule, i)
            .isTrue();
        return;
      }
    }
  }

  /**
   * Runs an exact schedule: every decision must equal the exact log's, and so must the figures of
   * each {@link Decision}, taking the latest clock reading as the time of each request. One
   * allowance: once the clock has stepped back, a refusal's {@code retryAfter} and {@code
   * resetAfter} may both be late by the same amount (never early), since a backend may measure them
   * from the latest time it recorded rather than the latest reading (a refusal that changes nothing
   * need not record its time); its {@code remaining} must then be the log's at that earlier time.
   */
  private void runExact(Schedule schedule, boolean countRefused) {
    FakeTicker ticker = new FakeTicker(schedule.originNanos());
    KeyedRateLimiter<String> limiter = newLimiter(schedule.limits(), countRefused, ticker);
    String key = freshKey();
    List<SlidingLogOracle> oracles = oracles(schedule.limits());
    long[] times = schedule.effectiveTimes();
    boolean steppedBack = false;
    for (int i = 0; i < schedule.size(); i++) {
      ticker.advance(schedule.gapsNanos().get(i));
      steppedBack |= schedule.gapsNanos().get(i) < 0;
      long now = times[i];
      long permits = schedule.permits().get(i);
      boolean expected = true;
      for (SlidingLogOracle oracle : oracles) {
        expected &= oracle.wouldGrant(now, permits);
      }
      String where = schedule + " at request " + i + " (t=" + now + ", permits=" + permits + ")";
      if (i % 3 == 0) {
        assertThat(limiter.tryAcquire(key, permits)).as(where).isEqualTo(expected);
        if (expected || countRefused) {
          record(oracles, now, permits);
        }
        continue;
      }
      Decision decision = limiter.decide(key, permits);
      assertThat(decision.allowed()).as(where).isEqualTo(expected);
      if (expected || countRefused) {
        record(oracles, now, permits);
      }
      int binding = 0;
      long late = 0;
      if (expected) {
        long least = Long.MAX_VALUE;
        for (int l = 0; l < oracles.size(); l++) {
          long remaining =
              oracles.get(l).permits() - oracles.get(l).countAt(now, oracles.get(l).windowNanos());
          if (remaining < least) {
            least = remaining;
            binding = l;
          }
        }
        assertThat(decision.remaining()).as("remaining, " + where).isEqualTo(Math.max(0, least));
        assertThat(decision.retryAfter()).as("retryAfter, " + where).isZero();
      } else {
        long longest = 0;
        for (int l = 0; l < oracles.size(); l++) {
          long wait = oracles.get(l).earliestGrant(now, permits) - now;
          if (wait > longest) {
            longest = wait;
            binding = l;
          }
        }
        late = decision.retryAfter().toNanos() - longest;
        if (steppedBack) {
          assertThat(late).as("retryAfter never early, " + where).isNotNegative();
        } else {
          assertThat(late).as("retryAfter, " + where).isZero();
        }
        // A backend that measured from an earlier time (retryAfter late by `late`) counts as of
        // that time: the remaining permits are the log's then, exactly.
        SlidingLogOracle bound = oracles.get(binding);
        long measuredAt = now - late;
        assertThat(decision.remaining())
            .as("remaining, " + where)
            .isEqualTo(
                Math.max(0, bound.permits() - bound.countAt(measuredAt, bound.windowNanos())));
      }
      assertThat(decision.limit())
          .as("binding limit, " + where)
          .isEqualTo(schedule.limits().get(binding));
      assertThat(decision.resetAfter().toNanos())
          .as("resetAfter, " + where)
          .isEqualTo(oracles.get(binding).emptyAt(now) - now + late);
    }
    if (!countRefused) {
      assertWithinLimits(oracles);
    }
  }

  /**
   * Runs a bucketed schedule: no interval of length W may hold more than N granted permits, and
   * every refusal must also be a refusal of the exact log over W + precision.
   */
  private void runBucketed(Schedule schedule, boolean countRefused) {
    FakeTicker ticker = new FakeTicker(schedule.originNanos());
    KeyedRateLimiter<String> limiter = newLimiter(schedule.limits(), countRefused, ticker);
    String key = freshKey();
    List<SlidingLogOracle> granted = oracles(schedule.limits());
    List<SlidingLogOracle> attempts = oracles(schedule.limits());
    List<SlidingLogOracle> decisive = countRefused ? attempts : granted;
    long[] times = schedule.effectiveTimes();
    for (int i = 0; i < schedule.size(); i++) {
      ticker.advance(schedule.gapsNanos().get(i));
      long now = times[i];
      long permits = schedule.permits().get(i);
      String where = schedule + " at request " + i + " (t=" + now + ", permits=" + permits + ")";
      boolean allowed;
      if (i % 2 == 0) {
        allowed = limiter.tryAcquire(key, permits);
      } else {
        Decision decision = limiter.decide(key, permits);
        allowed = decision.allowed();
        assertThat(decision.remaining()).as(where).isBetween(0L, decision.limit().permits());
        if (!allowed) {
          assertThat(decision.retryAfter().toNanos())
              .as(where)
              .isPositive()
              .isLessThanOrEqualTo(
                  decision.limit().windowNanos() + decision.limit().precisionNanos());
        }
      }
      if (!allowed) {
        boolean exactLogOverWPlusPRefuses = false;
        for (int l = 0; l < decisive.size(); l++) {
          Limit limit = schedule.limits().get(l);
          exactLogOverWPlusPRefuses |=
              !decisive
                  .get(l)
                  .wouldGrant(now, permits, limit.windowNanos() + limit.precisionNanos());
        }
        assertThat(exactLogOverWPlusPRefuses)
            .as("a refusal the exact log over W + p would grant, " + where)
            .isTrue();
      }
      if (allowed) {
        record(granted, now, permits);
      }
      record(attempts, now, permits);
    }
    assertWithinLimits(granted);
  }

  /**
   * The experiment of a published comparison of strict limiters (in which Bucket4j reached 114 and
   * Guava 107 grants in one second): 100 per second, a call every 8 ms, 1000 calls.
   */
  @Test
  void hundredPerSecond_callEvery8ms_atMost100PerSlidingSecondAndWithin1PercentOfExactLog() {
    Limit limit = Limit.of(100, Duration.ofSeconds(1));
    long origin = Math.floorDiv(new Random().nextLong(), tickNanos()) * tickNanos();
    FakeTicker ticker = new FakeTicker(origin);
    KeyedRateLimiter<String> limiter = newLimiter(List.of(limit), false, ticker);
    String key = freshKey();
    SlidingLogOracle ours = SlidingLogOracle.of(limit);
    SlidingLogOracle exactLog = SlidingLogOracle.of(limit);
    long step = Duration.ofMillis(8).toNanos();
    for (long i = 0, now = 0; i < 1000; i++, now += step, ticker.advance(step)) {
      if (limiter.tryAcquire(key)) {
        ours.record(now, 1);
      }
      if (exactLog.wouldGrant(now, 1)) {
        exactLog.record(now, 1);
      }
    }
    assertThat(ours.maxInAnyWindow()).as("clock origin %d", origin).isLessThanOrEqualTo(100);
    assertThat((double) ours.total())
        .as("clock origin %d", origin)
        .isCloseTo((double) exactLog.total(), Percentage.withPercentage(1));
  }

  /**
   * Eight threads on one limiter, in rounds: the clock stands still during a round and jumps
   * between rounds by random amounts, some shorter than the window. With exact limits, each round's
   * grants are known exactly: too many is a broken guarantee, too few a lost update.
   */
  @Test
  void eightThreadsInRounds_grantExactlyWhatIsLeftAndNeverExceedTheWindow() throws Exception {
    long tick = tickNanos();
    Limit perWindow =
        Limit.exact(50, Duration.ofNanos(1_000 * tick)).withPrecision(Duration.ofNanos(tick));
    Limit perLongWindow =
        Limit.exact(120, Duration.ofNanos(5_000 * tick)).withPrecision(Duration.ofNanos(tick));
    List<Limit> limits = List.of(perWindow, perLongWindow);
    FakeTicker ticker = new FakeTicker(-7 * tick);
    KeyedRateLimiter<String> limiter = newLimiter(limits, false, ticker);
    String shared = freshKey();
    int threads = 8;
    int attemptsPerThread = 12;
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    List<SlidingLogOracle> oracles = oracles(limits);
    CyclicBarrier start = new CyclicBarrier(threads + 1);
    CyclicBarrier end = new CyclicBarrier(threads + 1);
    AtomicLong grantedThisRound = new AtomicLong();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    int rounds = 60;
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        workers.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    start.await(10, TimeUnit.SECONDS);
                    for (int a = 0; a < attemptsPerThread; a++) {
                      if (limiter.tryAcquire(shared)) {
                        grantedThisRound.incrementAndGet();
                      }
                    }
                    end.await(10, TimeUnit.SECONDS);
                  }
                  return null;
                }));
      }
      long now = 0;
      for (int r = 0; r < rounds; r++) {
        long gap = tick * (random.nextInt(4) == 0 ? 1_000 : random.nextInt(700));
        ticker.advance(gap);
        now += gap;
        long available = (long) threads * attemptsPerThread;
        for (SlidingLogOracle oracle : oracles) {
          available =
              Math.min(available, oracle.permits() - oracle.countAt(now, oracle.windowNanos()));
        }
        grantedThisRound.set(0);
        start.await(10, TimeUnit.SECONDS);
        end.await(10, TimeUnit.SECONDS);
        assertThat(grantedThisRound.get()).as("round %d, seed %d", r, seed).isEqualTo(available);
        if (available > 0) {
          record(oracles, now, available);
        }
      }
      for (Future<?> worker : workers) {
        worker.get(10, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertWithinLimits(oracles);
  }

  @Test
  void clockGoingBackwards_isTakenAsNoTimePassing() {
    long tick = tickNanos();
    long window = 100 * tick;
    Limit limit = Limit.exact(2, Duration.ofNanos(window)).withPrecision(Duration.ofNanos(tick));
    FakeTicker ticker = new FakeTicker(40 * tick);
    KeyedRateLimiter<String> limiter = newLimiter(List.of(limit), false, ticker);
    String key = freshKey();
    assertThat(limiter.tryAcquire(key, 2)).isTrue();
    ticker.advance(-5 * window);
    assertThat(limiter.tryAcquire(key)).as("the clock went back: no time passed").isFalse();
    ticker.advance(5 * window + window - tick);
    assertThat(limiter.tryAcquire(key)).as("one tick before the grant leaves").isFalse();
    ticker.advance(tick);
    assertThat(limiter.tryAcquire(key)).as("the grant has left the window").isTrue();
  }

  @Test
  void invalidPermitsOrKey_areRejectedNamingTheParameter() {
    KeyedRateLimiter<String> limiter =
        newLimiter(
            List.of(Limit.of(10, Duration.ofSeconds(1)), Limit.of(5, Duration.ofSeconds(10))),
            false,
            new FakeTicker());
    String key = freshKey();
    for (long bad : new long[] {0, -1, Long.MIN_VALUE, 6, Long.MAX_VALUE}) {
      assertThatThrownBy(() -> limiter.tryAcquire(key, bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("permits")
          .hasMessageContaining(Long.toString(bad));
      assertThatThrownBy(() -> limiter.decide(key, bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("permits");
    }
    assertThatThrownBy(() -> limiter.tryAcquire(null, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> limiter.decide(null, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThat(limiter.tryAcquire(key, 5)).as("the largest valid request").isTrue();
  }

  private static List<SlidingLogOracle> oracles(List<Limit> limits) {
    List<SlidingLogOracle> oracles = new ArrayList<>();
    for (Limit limit : limits) {
      oracles.add(SlidingLogOracle.of(limit));
    }
    return oracles;
  }

  private static void record(List<SlidingLogOracle> oracles, long now, long permits) {
    for (SlidingLogOracle oracle : oracles) {
      oracle.record(now, permits);
    }
  }

  private static void assertWithinLimits(List<SlidingLogOracle> grants) {
    for (SlidingLogOracle oracle : grants) {
      assertThat(oracle.maxInAnyWindow())
          .as("most granted permits in any window, %s", oracle)
          .isLessThanOrEqualTo(oracle.permits());
    }
  }
}
