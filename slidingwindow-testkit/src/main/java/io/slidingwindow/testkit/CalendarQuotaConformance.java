package io.slidingwindow.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.CalendarPeriod;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Quota;
import io.slidingwindow.Reservation;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The plan kit of {@link PlanConformance} with calendar quotas, for a backend that has them: plans
 * may hold calendar quotas, and a calendar quota across period boundaries, in zones whose days
 * start oddly, decides as {@link CalendarLogOracle} does.
 */
public abstract class CalendarQuotaConformance extends PlanConformance {

  @Override
  protected final boolean calendarQuotas() {
    return true;
  }

  /**
   * A calendar quota (with an exact sliding window beside it, now and then) across period
   * boundaries in odd zones, with refunds, reservations and resets: every decision and every peek
   * is the calendar log's.
   */
  @Property(tries = 60)
  void calendarQuota_acrossPeriodBoundaries_decidesAsTheCalendarLog(@ForAll long seed) {
    Random random = new Random(seed);
    long tick = tickNanos();
    Object[] odd = ODD_DAYS.get(random.nextInt(ODD_DAYS.size()));
    ZoneId zone = ZoneId.of((String) odd[0]);
    CalendarPeriod period = PERIODS.get(random.nextInt(PERIODS.size()));
    Limit quota = Limit.calendar(1 + random.nextInt(random.nextBoolean() ? 5 : 60), period, zone);
    Limit exact =
        Limit.of(1 + random.nextInt(30), Duration.ofNanos((1 + random.nextInt(3_000)) * tick))
            .withPrecision(Duration.ofNanos(tick));
    boolean both = random.nextBoolean();
    List<Limit> limits = both ? List.of(quota, exact) : List.of(quota);
    long anchor = anchorNear(random, zone, (LocalDate) odd[1], period, 200_000 * tick);
    FakeTicker ticker = new FakeTicker(random.nextLong());
    KeyedRateLimiter<String> limiter = newLimiter(limits, key -> null, ticker, clockAt(anchor));
    String key = freshKey();
    CalendarLogOracle calendar = new CalendarLogOracle(quota);
    SlidingLogOracle sliding = SlidingLogOracle.of(exact);
    List<long[]> reserved = new ArrayList<>();
    List<Reservation> reservations = new ArrayList<>();
    long now = 0;
    for (int i = 0; i < 200; i++) {
      long gap =
          random.nextInt(40) == 0
              ? ((long) (random.nextDouble() * Math.floorDiv(period.longest().toNanos(), tick)))
                  * tick
              : tick * random.nextInt(2_000);
      now += gap;
      ticker.advance(gap);
      long epoch = anchor + now;
      String where =
          "seed "
              + seed
              + ", step "
              + i
              + " (t="
              + now
              + ", "
              + Instant.ofEpochSecond(0, epoch)
              + "), "
              + limits;
      int op = random.nextInt(20);
      if (op < 3) {
        Quota.Usage usage = limiter.peek(key).limits().get(0);
        long used = calendar.countAt(epoch);
        assertThat(usage.used()).as("used, " + where).isEqualTo(used);
        assertThat(usage.resetAfter().toNanos())
            .as("resetAfter, " + where)
            .isEqualTo(used == 0 ? 0 : calendar.endOf(epoch) - epoch);
      } else if (op < 5) {
        long back = Math.min(1 + random.nextInt(3), largest(limits));
        limiter.refund(key, back);
        calendar.removeNewest(back);
        sliding.removeNewest(back);
      } else if (op < 7 && !reserved.isEmpty()) {
        int r = random.nextInt(reserved.size());
        long[] at = reserved.remove(r);
        assertThat(reservations.remove(r).refund()).as(where).isTrue();
        calendar.removeInPeriod(anchor + at[0], at[1]);
        sliding.removeInBucket(at[0], tick, at[1]);
      } else if (op == 7) {
        limiter.reset(key);
        calendar.clear();
        sliding.clear();
      } else {
        long smallest = both ? Math.min(quota.permits(), exact.permits()) : quota.permits();
        long permits = random.nextInt(4) == 0 ? 1 + (long) (random.nextDouble() * smallest) : 1;
        boolean expected =
            calendar.wouldGrant(epoch, permits) && (!both || sliding.wouldGrant(now, permits));
        boolean allowed;
        if (op < 12) {
          Reservation reservation = limiter.reserve(key, permits);
          allowed = reservation.decision().allowed();
          if (allowed) {
            reserved.add(new long[] {now, permits});
            reservations.add(reservation);
          }
        } else {
          allowed = limiter.decide(key, permits).allowed();
        }
        assertThat(allowed).as("decision of the calendar log, " + where).isEqualTo(expected);
        if (allowed) {
          calendar.record(epoch, permits);
          sliding.record(now, permits);
        }
      }
    }
  }
}
