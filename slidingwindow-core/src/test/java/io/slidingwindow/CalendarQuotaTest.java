package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class CalendarQuotaTest {

  private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

  @Test
  void calendar_invalidArguments_areRejectedNamingTheParameter() {
    assertThatThrownBy(() -> Limit.calendar(0, CalendarPeriod.DAY, PARIS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits");
    assertThatThrownBy(() -> Limit.calendar(1, null, PARIS))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("period");
    assertThatThrownBy(() -> Limit.calendar(1, CalendarPeriod.DAY, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("zone");
    Limit monthly = Limit.calendar(10_000, CalendarPeriod.MONTH, PARIS);
    assertThatThrownBy(() -> monthly.withPrecision(Duration.ofHours(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("precision")
        .hasMessageContaining("calendar");
  }

  @Test
  void text_calendarQuotas_readAndWrittenWithTheirZone() {
    Limit monthly = Limit.parse("10000/month@Europe/Paris");
    assertThat(monthly).isEqualTo(Limit.calendar(10_000, CalendarPeriod.MONTH, PARIS));
    assertThat(monthly.toText()).isEqualTo("10000/month@Europe/Paris");
    assertThat(Limit.parse(" 500 / day ").toText()).isEqualTo("500/day@UTC");
    assertThat(Limit.parse("7/week@UTC"))
        .isEqualTo(Limit.calendar(7, CalendarPeriod.WEEK, ZoneOffset.UTC));
    assertThat(Limit.parse("1/YEAR@Asia/Tokyo").calendarPeriod()).contains(CalendarPeriod.YEAR);
    assertThat(Limit.parse("5/1d").isCalendar()).as("1d is a sliding day").isFalse();
    assertThatThrownBy(() -> Limit.parse("5/month@Mars/Olympus"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("zone")
        .hasMessageContaining("Mars/Olympus");
    assertThatThrownBy(() -> Limit.parse("5/fortnight@UTC"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("fortnight");
    assertThat(monthly.toString()).isEqualTo("10000 per calendar MONTH in Europe/Paris");
    assertThat(monthly.window()).isEqualTo(Duration.ofDays(31).plusHours(2));
    assertThat(monthly.maxStoredRuns()).isEqualTo(1);
  }

  @Test
  void sameWindow_comparesEverythingButThePermits() {
    Limit tenSeconds = Limit.of(5, Duration.ofSeconds(10));
    assertThat(tenSeconds.sameWindow(Limit.of(20, Duration.ofSeconds(10)))).isTrue();
    assertThat(tenSeconds.sameWindow(tenSeconds.withPrecision(Duration.ofSeconds(1)))).isFalse();
    Limit daily = Limit.calendar(3, CalendarPeriod.DAY, PARIS);
    assertThat(daily.sameWindow(Limit.calendar(9, CalendarPeriod.DAY, PARIS))).isTrue();
    assertThat(daily.sameWindow(Limit.calendar(3, CalendarPeriod.DAY, ZoneOffset.UTC))).isFalse();
    assertThat(daily.sameWindow(Limit.of(3, daily.window()).withPrecision(daily.precision())))
        .isFalse();
    assertThat(daily).isNotEqualTo(Limit.calendar(3, CalendarPeriod.DAY, ZoneOffset.UTC));
  }

  /**
   * Three a day in Paris on the 23-hour day of 29 March 2026: three granted before midnight, the
   * fourth refused with a retryAfter of exactly the time to midnight, three again from midnight.
   */
  @Test
  void dailyQuota_acrossMidnight_countsEachDayExactly() {
    Instant start = Instant.parse("2026-03-29T21:00:00Z"); // 23:00 in Paris, summer time
    ManualTicker ticker = new ManualTicker(-5);
    Limit daily = Limit.calendar(3, CalendarPeriod.DAY, PARIS);
    KeyedRateLimiter<String> limiter =
        KeyedRateLimiter.builder()
            .limit(daily)
            .ticker(ticker)
            .calendarClock(Clock.fixed(start, ZoneOffset.UTC))
            .build();
    assertThat(limiter.tryAcquire("k", 2)).isTrue();
    assertThat(limiter.tryAcquire("k", 1)).isTrue();
    Decision refused = limiter.decide("k", 1);
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofHours(1));
    assertThat(refused.resetAfter()).isEqualTo(Duration.ofHours(1));
    assertThat(limiter.peek("k").limits().get(0).used()).isEqualTo(3);
    ticker.advance(Duration.ofHours(1).toNanos() - 1);
    assertThat(limiter.tryAcquire("k", 1)).as("a nanosecond before midnight").isFalse();
    ticker.advance(1);
    assertThat(limiter.peek("k").limits().get(0).used()).isZero();
    assertThat(limiter.tryAcquire("k", 3)).isTrue();
    assertThat(limiter.decide("k", 1).retryAfter()).isEqualTo(Duration.ofHours(24));
    limiter.cleanUp();
    assertThat(((LocalKeyedRateLimiter<?>) limiter).trackedKeys()).isEqualTo(1);
    ticker.advance(Duration.ofHours(24).toNanos());
    limiter.cleanUp();
    assertThat(((LocalKeyedRateLimiter<?>) limiter).trackedKeys())
        .as("evicted once its day has ended")
        .isZero();
  }

  @Test
  void calendarQuotaBesideASlidingWindow_bindsWhenItIsTheOneThatWaitsLongest() {
    ManualTicker ticker = new ManualTicker(0);
    Limit monthly = Limit.calendar(4, CalendarPeriod.MONTH, ZoneOffset.UTC);
    Limit perSecond = Limit.exact(2, Duration.ofSeconds(1));
    RateLimiter limiter =
        RateLimiter.builder()
            .limit(perSecond)
            .limit(monthly)
            .ticker(ticker)
            .calendarClock(Clock.fixed(Instant.parse("2026-01-31T23:59:00Z"), ZoneOffset.UTC))
            .build();
    assertThat(limiter.tryAcquire(2)).isTrue();
    assertThat(limiter.decide(1).limit()).as("the second binds").isEqualTo(perSecond);
    ticker.advance(Duration.ofSeconds(1).toNanos());
    assertThat(limiter.tryAcquire(2)).isTrue();
    ticker.advance(Duration.ofSeconds(1).toNanos());
    Decision refused = limiter.decide(1);
    assertThat(refused.limit()).isEqualTo(monthly);
    assertThat(refused.retryAfter()).isEqualTo(Duration.ofSeconds(58));
    assertThat(limiter.tryAcquire(1)).as("refused without the lock until February").isFalse();
    assertThat(limiter.refund(1).remaining()).isEqualTo(1);
    assertThat(limiter.tryAcquire(1)).as("the refund freed one at once").isTrue();
    ticker.advance(Duration.ofSeconds(58).toNanos());
    assertThat(limiter.tryAcquire(2)).as("February").isTrue();
  }
}
