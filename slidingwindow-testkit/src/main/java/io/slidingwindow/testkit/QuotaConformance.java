package io.slidingwindow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Quota;
import io.slidingwindow.Reservation;
import io.slidingwindow.Ticker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The quota operations every limiter backend must pass ({@link KeyedRateLimiter#peek}, {@link
 * KeyedRateLimiter#reset}, {@link KeyedRateLimiter#refund}, {@link KeyedRateLimiter#reserve} and
 * {@link Reservation#refund()}), checked against {@link SlidingLogOracle}: the oracle's log holds
 * exactly the permits that stay recorded (a reset clears it, a refund takes the newest, a
 * reservation's refund takes from the bucket of its time), and the limiter must keep that log
 * within every limit at every grant, and decide as it would.
 *
 * <p>Schedules are {@link Schedule#random}'s, with the clock moving forward; the operations mixed
 * into them come from a seed that jqwik prints with a failure. Every time is driven by a {@link
 * FakeTicker}.
 */
public abstract class QuotaConformance {

  private static final AtomicLong KEYS = new AtomicLong();

  /** Builds a limiter of {@code limits} on {@code ticker}; as the core conformance kit's. */
  protected abstract KeyedRateLimiter<String> newLimiter(
      List<Limit> limits, boolean countRefusedAttempts, Ticker ticker);

  /** The finest time unit the backend resolves; every generated time is a multiple of it. */
  protected long tickNanos() {
    return 1;
  }

  /** A key no scenario has used. */
  protected static String freshKey() {
    return "quota-" + KEYS.incrementAndGet();
  }

  @Provide
  Arbitrary<Schedule> exactSchedules() {
    return Arbitraries.randomValue(random -> Schedule.random(random, tickNanos(), true, false));
  }

  @Provide
  Arbitrary<Schedule> bucketedSchedules() {
    return Arbitraries.randomValue(random -> Schedule.random(random, tickNanos(), false, false));
  }

  @Property(tries = 80)
  void exactLimits_quotaOperations_decideAsTheLogOfRecordedPermitsAndNeverExceedIt(
      @ForAll("exactSchedules") Schedule schedule, @ForAll long seed) {
    run(schedule, new Random(seed), true);
  }

  @Property(tries = 80)
  void bucketedLimits_quotaOperations_neverExceedAnyWindowOfRecordedPermits(
      @ForAll("bucketedSchedules") Schedule schedule, @ForAll long seed) {
    run(schedule, new Random(seed), false);
  }

  /** A reservation made in a run, with what the oracle needs to take it back. */
  private record Reserved(Reservation reservation, long time, long permits) {}

  /**
   * Runs {@code schedule} with quota operations mixed in. With exact limits every decision must be
   * the log's and every peek its figures; with buckets, every refusal must be one of the log over
   * {@code W + p} and a peek's count lie between the log's over {@code W} and over {@code W + p}.
   */
  private void run(Schedule schedule, Random random, boolean exact) {
    FakeTicker ticker = new FakeTicker(schedule.originNanos());
    KeyedRateLimiter<String> limiter = newLimiter(schedule.limits(), false, ticker);
    String key = freshKey();
    List<Limit> limits = schedule.limits();
    List<SlidingLogOracle> oracles = new ArrayList<>();
    for (Limit limit : limits) {
      oracles.add(SlidingLogOracle.of(limit));
    }
    long largest = limits.stream().mapToLong(Limit::permits).max().orElseThrow();
    List<Reserved> reserved = new ArrayList<>();
    long[] times = schedule.effectiveTimes();
    for (int i = 0; i < schedule.size(); i++) {
      ticker.advance(schedule.gapsNanos().get(i));
      long now = times[i];
      long permits = schedule.permits().get(i);
      String where = schedule + " at request " + i + " (t=" + now + ", permits=" + permits + ")";
      int op = random.nextInt(20);
      if (op < 3) {
        checkPeek(limiter.peek(key), oracles, limits, now, exact, where);
      } else if (op < 5) {
        long back = 1 + (long) (random.nextDouble() * largest);
        Quota after = limiter.refund(key, back);
        for (SlidingLogOracle oracle : oracles) {
          oracle.removeNewest(back);
        }
        checkPeek(after, oracles, limits, now, exact, "after refunding " + back + ", " + where);
      } else if (op < 8 && !reserved.isEmpty()) {
        Reserved r = reserved.remove(random.nextInt(reserved.size()));
        assertThat(r.reservation().refund()).as("first refund, " + where).isTrue();
        assertThat(r.reservation().refund()).as("second refund, " + where).isFalse();
        for (int l = 0; l < limits.size(); l++) {
          oracles.get(l).removeInBucket(r.time(), limits.get(l).precisionNanos(), r.permits());
        }
      } else if (op == 8) {
        limiter.reset(key);
        oracles.forEach(SlidingLogOracle::clear);
        assertThat(limiter.peek(key).remaining())
            .as("after a reset, " + where)
            .isEqualTo(limits.stream().mapToLong(Limit::permits).min().orElseThrow());
      } else {
        boolean expected = true;
        boolean refusedOverWPlusP = false;
        for (int l = 0; l < limits.size(); l++) {
          Limit limit = limits.get(l);
          expected &= oracles.get(l).wouldGrant(now, permits);
          refusedOverWPlusP |=
              !oracles
                  .get(l)
                  .wouldGrant(now, permits, limit.windowNanos() + limit.precisionNanos());
        }
        boolean allowed;
        if (op < 14) {
          Reservation reservation = limiter.reserve(key, permits);
          allowed = reservation.decision().allowed();
          assertThat(reservation.isRefundable())
              .as("refundable iff granted, " + where)
              .isEqualTo(allowed);
          if (allowed) {
            reserved.add(new Reserved(reservation, now, permits));
          }
        } else if (op < 17) {
          allowed = limiter.decide(key, permits).allowed();
        } else {
          allowed = limiter.tryAcquire(key, permits);
        }
        if (exact) {
          assertThat(allowed)
              .as("decision of the log of recorded permits, " + where)
              .isEqualTo(expected);
        } else if (!allowed) {
          assertThat(refusedOverWPlusP)
              .as("a refusal the log over W + p would grant, " + where)
              .isTrue();
        }
        if (allowed) {
          for (int l = 0; l < limits.size(); l++) {
            SlidingLogOracle oracle = oracles.get(l);
            oracle.record(now, permits);
            assertThat(oracle.countAt(now, oracle.windowNanos()))
                .as("recorded permits in the window ending at a grant, %s, %s", oracle, where)
                .isLessThanOrEqualTo(oracle.permits());
          }
        }
      }
    }
    for (SlidingLogOracle oracle : oracles) {
      assertThat(oracle.maxInAnyWindow())
          .as("most recorded permits in any window, %s, %s", oracle, schedule)
          .isLessThanOrEqualTo(oracle.permits());
    }
  }

  private static void checkPeek(
      Quota quota,
      List<SlidingLogOracle> oracles,
      List<Limit> limits,
      long now,
      boolean exact,
      String where) {
    assertThat(quota.limits()).as("one usage per limit, " + where).hasSize(limits.size());
    for (int l = 0; l < limits.size(); l++) {
      Quota.Usage usage = quota.limits().get(l);
      Limit limit = limits.get(l);
      SlidingLogOracle oracle = oracles.get(l);
      long inWindow = oracle.countAt(now, limit.windowNanos());
      assertThat(usage.limit()).as("limit, " + where).isEqualTo(limit);
      assertThat(usage.remaining())
          .as("remaining, " + where)
          .isEqualTo(Math.max(0, limit.permits() - usage.used()));
      if (exact) {
        assertThat(usage.used()).as("used, " + where).isEqualTo(inWindow);
        assertThat(usage.resetAfter().toNanos())
            .as("resetAfter, " + where)
            .isEqualTo(oracle.emptyAt(now) - now);
      } else {
        assertThat(usage.used())
            .as("used, " + where)
            .isBetween(inWindow, oracle.countAt(now, limit.windowNanos() + limit.precisionNanos()));
        assertThat(usage.resetAfter().toNanos())
            .as("resetAfter, " + where)
            .isBetween(oracle.emptyAt(now) - now, limit.windowNanos() + limit.precisionNanos());
      }
    }
  }

  @Test
  void peek_untrackedKey_wholeQuotaWithoutTakingAnything() {
    Limit perSecond = Limit.of(3, Duration.ofSeconds(1));
    Limit perMinute = Limit.of(10, Duration.ofMinutes(1));
    KeyedRateLimiter<String> limiter =
        newLimiter(List.of(perSecond, perMinute), false, new FakeTicker());
    String key = freshKey();
    Quota quota = limiter.peek(key);
    assertThat(quota.limits())
        .containsExactly(
            new Quota.Usage(perSecond, 0, 3, Duration.ZERO),
            new Quota.Usage(perMinute, 0, 10, Duration.ZERO));
    assertThat(quota.remaining()).isEqualTo(3);
    assertThat(quota.plan()).isEmpty();
    assertThat(limiter.tryAcquire(key, 3)).as("peek took nothing").isTrue();
    assertThat(limiter.peek(key).limits().get(1).remaining()).isEqualTo(7);
  }

  @Test
  void refundAndReset_fullKey_giveItsPermitsBack() {
    long tick = tickNanos();
    Limit limit =
        Limit.exact(4, Duration.ofNanos(1_000 * tick)).withPrecision(Duration.ofNanos(tick));
    FakeTicker ticker = new FakeTicker();
    KeyedRateLimiter<String> limiter = newLimiter(List.of(limit), false, ticker);
    String key = freshKey();
    assertThat(limiter.tryAcquire(key, 4)).isTrue();
    assertThat(limiter.tryAcquire(key, 1)).isFalse();
    Quota afterRefund = limiter.refund(key, 3);
    assertThat(afterRefund.remaining()).isEqualTo(3);
    assertThat(limiter.refund(key, 4).remaining()).as("never below zero").isEqualTo(4);
    assertThat(limiter.tryAcquire(key, 4)).isTrue();
    ticker.advance(10 * tick);
    limiter.reset(key);
    assertThat(limiter.peek(key).remaining()).isEqualTo(4);
    assertThat(limiter.tryAcquire(key, 4)).as("the whole limit again after a reset").isTrue();
    assertThat(limiter.tryAcquire(key, 1)).isFalse();
  }

  /**
   * A reservation's refund takes back its own permits, not the newest: after a later grant, the
   * reservation's permits leave the window when it would have, the later grant's stay.
   */
  @Test
  void reservationRefund_laterGrants_takesBackItsOwnPermitsOnce() {
    long tick = tickNanos();
    long window = 1_000 * tick;
    Limit limit = Limit.exact(3, Duration.ofNanos(window)).withPrecision(Duration.ofNanos(tick));
    FakeTicker ticker = new FakeTicker();
    KeyedRateLimiter<String> limiter = newLimiter(List.of(limit), false, ticker);
    String key = freshKey();
    Reservation first = limiter.reserve(key, 2);
    assertThat(first.decision().allowed()).isTrue();
    ticker.advance(100 * tick);
    assertThat(limiter.tryAcquire(key, 1)).isTrue();
    assertThat(limiter.tryAcquire(key, 1)).isFalse();
    assertThat(first.refund()).isTrue();
    assertThat(first.refund()).as("a second refund does nothing").isFalse();
    assertThat(first.isRefundable()).isFalse();
    assertThat(limiter.peek(key).limits().get(0).used()).isEqualTo(1);
    // At the window's length after the reservation, its permits would have left anyway: the later
    // grant is what is still recorded (a refund of the newest permits would have left the
    // reservation's).
    ticker.advance(window - 100 * tick);
    assertThat(limiter.peek(key).limits().get(0).used()).as("the later grant stays").isEqualTo(1);
    ticker.advance(100 * tick - tick);
    assertThat(limiter.peek(key).limits().get(0).used()).isEqualTo(1);
    ticker.advance(tick);
    assertThat(limiter.peek(key).limits().get(0).used()).as("the later grant left").isZero();
    assertThat(limiter.tryAcquire(key, 3)).isTrue();
    Reservation refused = limiter.reserve(key, 2);
    assertThat(refused.decision().allowed()).isFalse();
    assertThat(refused.isRefundable()).isFalse();
    assertThat(refused.refund()).isFalse();
  }

  @Test
  void invalidArguments_areRejectedNamingTheParameter() {
    KeyedRateLimiter<String> limiter =
        newLimiter(
            List.of(Limit.of(10, Duration.ofSeconds(1)), Limit.of(50, Duration.ofSeconds(10))),
            false,
            new FakeTicker());
    String key = freshKey();
    for (long bad : new long[] {0, -1, Long.MIN_VALUE, 51, Long.MAX_VALUE}) {
      assertThatThrownBy(() -> limiter.refund(key, bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("permits")
          .hasMessageContaining(Long.toString(bad));
    }
    for (long bad : new long[] {0, -1, 11}) {
      assertThatThrownBy(() -> limiter.reserve(key, bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("permits");
    }
    assertThatThrownBy(() -> limiter.peek(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> limiter.reset(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> limiter.refund(null, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> limiter.reserve(null, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThat(limiter.refund(key, 50).remaining()).as("the largest valid refund").isEqualTo(10);
  }

  @Test
  void countingRefusedAttempts_refundIsUnsupportedAndReservationsAreNotRefundable() {
    KeyedRateLimiter<String> limiter =
        newLimiter(List.of(Limit.of(2, Duration.ofSeconds(1))), true, new FakeTicker());
    String key = freshKey();
    Reservation reservation = limiter.reserve(key, 1);
    assertThat(reservation.decision().allowed()).isTrue();
    assertThat(reservation.isRefundable()).isFalse();
    assertThatThrownBy(() -> limiter.refund(key, 1))
        .isInstanceOf(UnsupportedOperationException.class)
        .hasMessageContaining("refused attempts");
    limiter.reset(key);
    assertThat(limiter.peek(key).remaining()).isEqualTo(2);
  }
}
