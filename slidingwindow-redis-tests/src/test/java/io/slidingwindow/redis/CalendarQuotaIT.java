package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Quota;
import io.slidingwindow.Reservation;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Calendar quotas on the shared standalone server, for each client, driven by a fake ticker in
 * client time, with the calendar clock fixed at a chosen instant: exact counts per period, the
 * first instant of the next period, days of 23 and 25 hours, the quota operations, and a plan that
 * mixes a sliding window with a monthly quota.
 */
class CalendarQuotaIT {

  private static final AtomicLong IDS = new AtomicLong();
  private static final ZoneId PARIS = ZoneId.of("Europe/Paris");
  private static final Duration MICRO = Duration.ofNanos(1_000);

  private static String freshId() {
    return "calendar-it-" + IDS.incrementAndGet();
  }

  /** The instant of a local date and time in Paris. */
  private static Instant paris(int year, int month, int day, int hour, int minute) {
    return ZonedDateTime.of(year, month, day, hour, minute, 0, 0, PARIS).toInstant();
  }

  private static RedisRateLimiter.Builder builder(Client client, FakeTicker ticker, Instant at) {
    return QuotaOperationsIT.builder(client)
        .clientTime(ticker)
        .calendarClock(Clock.fixed(at, ZoneOffset.UTC));
  }

  private static int grants(RedisRateLimiter limiter, String id, int attempts) {
    return QuotaOperationsIT.grants(limiter, id, attempts);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void monthlyQuota_acrossTheMonthsEnd_countsExactlyNAndRestartsAtTheFirstInstant(Client client) {
    Instant aprilFirst = paris(2026, 4, 1, 0, 0);
    FakeTicker ticker = new FakeTicker(123_456_789);
    RedisRateLimiter limiter =
        builder(client, ticker, aprilFirst.minusSeconds(60))
            .limit(Limit.parse("5/month@Europe/Paris"))
            .build();
    String id = freshId();
    assertThat(grants(limiter, id, 8)).as("March, a minute before its end").isEqualTo(5);
    Decision refused = limiter.decide(id, 1);
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.retryAfter())
        .as("until 1 April 00:00 Paris")
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(refused.resetAfter()).isEqualTo(Duration.ofMinutes(1));
    ticker.advance(Duration.ofMinutes(1).minus(MICRO));
    Decision last = limiter.decide(id, 1);
    assertThat(last.allowed()).as("the last microsecond of March").isFalse();
    assertThat(last.retryAfter()).isEqualTo(MICRO);
    ticker.advance(MICRO);
    Decision first = limiter.decide(id, 1);
    assertThat(first.allowed()).as("the first instant of April").isTrue();
    assertThat(first.remaining()).isEqualTo(4);
    assertThat(first.resetAfter()).as("April lasts 30 days").isEqualTo(Duration.ofDays(30));
    assertThat(grants(limiter, id, 8)).as("the rest of April's").isEqualTo(4);
    ticker.advance(Duration.ofDays(30).minus(MICRO));
    assertThat(limiter.tryAcquire(id, 1)).as("the last microsecond of April").isFalse();
    ticker.advance(MICRO);
    assertThat(grants(limiter, id, 8)).as("May").isEqualTo(5);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void dailyQuota_daylightSavingDays_lastTwentyThreeAndTwentyFiveHours(Client client) {
    for (Object[] day :
        List.of(
            new Object[] {paris(2026, 3, 29, 0, 0), Duration.ofHours(23)},
            new Object[] {paris(2026, 10, 25, 0, 0), Duration.ofHours(25)},
            new Object[] {paris(2026, 6, 10, 0, 0), Duration.ofHours(24)})) {
      Instant midnight = (Instant) day[0];
      Duration length = (Duration) day[1];
      FakeTicker ticker = new FakeTicker();
      RedisRateLimiter limiter =
          builder(client, ticker, midnight).limit(Limit.parse("3/day@Europe/Paris")).build();
      String id = freshId();
      assertThat(grants(limiter, id, 5)).as("at %s", midnight).isEqualTo(3);
      Decision refused = limiter.decide(id, 1);
      assertThat(refused.resetAfter()).as("the day from %s", midnight).isEqualTo(length);
      assertThat(limiter.peek(id).limits().get(0).resetAfter()).isEqualTo(length);
      ticker.advance(length.minus(MICRO));
      assertThat(limiter.tryAcquire(id, 1)).as("the day's last microsecond").isFalse();
      ticker.advance(MICRO);
      assertThat(grants(limiter, id, 5)).as("the next day").isEqualTo(3);
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void monthlyQuota_monthWithTheSpringChange_lastsAnHourLess(Client client) {
    FakeTicker ticker = new FakeTicker();
    RedisRateLimiter limiter =
        builder(client, ticker, paris(2026, 3, 1, 0, 0))
            .limit(Limit.parse("2/month@Europe/Paris"))
            .build();
    String id = freshId();
    assertThat(limiter.decide(id, 1).resetAfter())
        .as("March 2026 in Paris")
        .isEqualTo(Duration.ofDays(31).minusHours(1));
    ticker.advance(Duration.ofDays(31).minusHours(1).minus(MICRO));
    assertThat(grants(limiter, id, 3)).as("the last microsecond of March").isEqualTo(1);
    ticker.advance(MICRO);
    assertThat(grants(limiter, id, 3)).as("1 April, 00:00 Paris").isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void quotaOperations_calendarQuota_peekResetRefundAndReserve(Client client) {
    Instant aprilFirst = paris(2026, 4, 1, 0, 0);
    FakeTicker ticker = new FakeTicker();
    RedisRateLimiter limiter =
        builder(client, ticker, aprilFirst.minusSeconds(10))
            .limit(Limit.parse("5/month@Europe/Paris"))
            .build();
    String id = freshId();
    Quota.Usage whole = limiter.peek(id).limits().get(0);
    assertThat(whole.used()).isZero();
    assertThat(whole.remaining()).isEqualTo(5);
    assertThat(whole.resetAfter()).isZero();

    Reservation march = limiter.reserve(id, 2);
    assertThat(march.isRefundable()).isTrue();
    assertThat(grants(limiter, id, 1)).isEqualTo(1);
    Quota.Usage usage = limiter.peek(id).limits().get(0);
    assertThat(usage.used()).isEqualTo(3);
    assertThat(usage.remaining()).isEqualTo(2);
    assertThat(usage.resetAfter()).isEqualTo(Duration.ofSeconds(10));
    assertThat(limiter.refund(id, 1).limits().get(0).used()).as("refund of one").isEqualTo(2);
    assertThat(march.refund()).isTrue();
    assertThat(limiter.peek(id).limits().get(0).used()).as("the reservation's two").isZero();
    assertThat(march.refund()).as("once").isFalse();

    Reservation late = limiter.reserve(id, 3);
    assertThat(grants(limiter, id, 3)).as("March full").isEqualTo(2);
    ticker.advance(Duration.ofSeconds(10));
    assertThat(grants(limiter, id, 4)).as("April").isEqualTo(4);
    assertThat(late.refund()).isTrue();
    assertThat(limiter.peek(id).limits().get(0).used())
        .as("a March reservation gives nothing back from April")
        .isEqualTo(4);
    assertThat(limiter.refund(id, 3).limits().get(0).used()).as("April's newest").isEqualTo(1);
    limiter.reset(id);
    assertThat(limiter.peek(id).limits().get(0).used()).isZero();
    assertThat(grants(limiter, id, 6)).as("after a reset").isEqualTo(5);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void plan_slidingWindowAndMonthlyQuota_decidedTogether(Client client) {
    Plan pro = Plan.of("pro", Limit.parse("2/10s"), Limit.parse("5/month@Europe/Paris"));
    String id = freshId();
    FakeTicker ticker = new FakeTicker();
    RedisRateLimiter limiter =
        builder(client, ticker, paris(2026, 5, 31, 23, 59))
            .limit(Limit.parse("1/10s"))
            .build(PlanResolver.of(Map.of(id, pro)));
    List<String> keys = limiter.keysOf(id);
    assertThat(keys).hasSize(2);
    String tag = keys.get(0).substring(0, keys.get(0).indexOf('}') + 1);
    assertThat(keys).allMatch(k -> k.startsWith(tag), "one hash tag");
    assertThat(keys.get(1)).endsWith(":month@Europe/Paris");

    assertThat(grants(limiter, id, 3)).as("two per ten seconds").isEqualTo(2);
    Decision sliding = limiter.decide(id, 1);
    assertThat(sliding.limit()).isEqualTo(pro.limits().get(0));
    ticker.advance(Duration.ofSeconds(11));
    assertThat(grants(limiter, id, 3)).isEqualTo(2);
    ticker.advance(Duration.ofSeconds(11));
    assertThat(grants(limiter, id, 1)).isEqualTo(1);
    ticker.advance(Duration.ofSeconds(11));
    long slidingUsed = limiter.peek(id).limits().get(0).used();
    Decision monthly = limiter.decide(id, 1);
    assertThat(monthly.allowed()).as("the month's five are spent").isFalse();
    assertThat(monthly.limit()).isEqualTo(pro.limits().get(1));
    assertThat(monthly.retryAfter()).as("until 1 June").isEqualTo(Duration.ofSeconds(27));
    Quota quota = limiter.peek(id);
    assertThat(quota.plan()).contains("pro");
    assertThat(quota.limits().get(0).used())
        .as("the refusal recorded nothing in the sliding window")
        .isEqualTo(slidingUsed);
    assertThat(quota.limits().get(1).used()).isEqualTo(5);
    ticker.advance(Duration.ofSeconds(27));
    assertThat(grants(limiter, id, 3)).as("June, two per ten seconds again").isEqualTo(2);
    assertThat(limiter.peek(id).limits().get(1).used()).isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void countRefusedAttempts_calendarQuota_saturatesAtNAndRestartsNextPeriod(Client client) {
    FakeTicker ticker = new FakeTicker();
    RedisRateLimiter limiter =
        builder(client, ticker, paris(2026, 7, 31, 23, 0))
            .limit(Limit.parse("3/month@Europe/Paris"))
            .countRefusedAttempts(true)
            .build();
    String id = freshId();
    assertThat(grants(limiter, id, 10)).isEqualTo(3);
    Quota.Usage usage = limiter.peek(id).limits().get(0);
    assertThat(usage.used()).as("saturated").isEqualTo(3);
    ticker.advance(Duration.ofHours(1));
    assertThat(grants(limiter, id, 10)).as("August").isEqualTo(3);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void zoneSpellings_ofUtcAndOfAnOffset_shareOneQuotaPerId(Client client) {
    Instant noon = Instant.parse("2026-06-15T12:00:00Z");
    FakeTicker ticker = new FakeTicker(42);
    for (List<String> spellings :
        List.of(
            List.of("UTC", "Etc/UTC", "Z", "GMT", "UTC+00:00"),
            List.of("+01:00", "Etc/GMT-1", "UTC+1", "GMT+01:00"))) {
      String id = freshId();
      int granted = 0;
      for (String zone : spellings) {
        RedisRateLimiter limiter =
            builder(client, ticker, noon).limit(Limit.parse("4/day@" + zone)).build();
        granted += grants(limiter, id, 3);
      }
      assertThat(granted).as("one day's quota for %s", spellings).isEqualTo(4);
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void regionAliases_keepTheirOwnKeys(Client client) {
    Instant noon = Instant.parse("2026-06-15T12:00:00Z");
    FakeTicker ticker = new FakeTicker(42);
    RedisRateLimiter eastern =
        builder(client, ticker, noon).limit(Limit.parse("2/day@US/Eastern")).build();
    RedisRateLimiter newYork =
        builder(client, ticker, noon).limit(Limit.parse("2/day@America/New_York")).build();
    String id = freshId();
    assertThat(eastern.keysOf(id)).isNotEqualTo(newYork.keysOf(id));
    assertThat(grants(eastern, id, 3) + grants(newYork, id, 3))
        .as("documented in docs/redis.md: configure one spelling of a region on all instances")
        .isEqualTo(4);
  }
}
