package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.CalendarPeriod;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter.Response;
import reactor.core.scheduler.Schedulers;

/**
 * Calendar quotas on a route, given in code through {@code Config.limit(Limit)} and {@code
 * Config.plan(String, Limit...)}: counted per period of the zone's calendar, not per sliding
 * window. The limiters run on a fake ticker and a fixed calendar clock: 13:00 in Paris, 11 hours
 * before the day ends there.
 */
class GatewayCalendarQuotaTest {

  private static final ZoneId PARIS = ZoneId.of("Europe/Paris");
  private static final Instant NOON_UTC = Instant.parse("2026-03-10T12:00:00Z");
  private static final Duration TO_MIDNIGHT_IN_PARIS = Duration.ofHours(11);

  private final FakeTicker ticker = new FakeTicker();

  /** The in-process backend, its calendar quotas on the fixed clock. */
  private final RateLimiterFactory factory =
      new RateLimiterFactory() {
        @Override
        public KeyedRateLimiter<String> create(
            String ruleName, List<Limit> limits, boolean countRefused) {
          return create(ruleName, limits, countRefused, null);
        }

        @Override
        public KeyedRateLimiter<String> create(
            String ruleName, List<Limit> limits, boolean countRefused, PlanResolver<String> plans) {
          return KeyedRateLimiter.builder()
              .limits(limits)
              .ticker(ticker)
              .calendarClock(Clock.fixed(NOON_UTC, ZoneOffset.UTC))
              .build(plans);
        }
      };

  private final SlidingWindowRateLimiter limiter =
      SlidingWindowRateLimiter.builder()
          .factory(factory)
          .local(factory)
          .timer(Schedulers.immediate())
          .build();

  private boolean allowed(String route, String key) {
    return response(route, key).isAllowed();
  }

  private Response response(String route, String key) {
    return limiter.isAllowed(route, key).block(Duration.ofSeconds(5));
  }

  @Test
  void limit_calendarQuota_refusesAfterItsPermitsUntilThePeriodEnds() {
    limiter
        .getConfig()
        .put(
            "quota",
            new SlidingWindowRateLimiter.Config()
                .limit(Limit.calendar(3, CalendarPeriod.DAY, PARIS)));

    for (int i = 0; i < 3; i++) {
      assertThat(allowed("quota", "alice")).as("request %d of the day", i + 1).isTrue();
    }
    Response fourth = response("quota", "alice");
    assertThat(fourth.isAllowed()).isFalse();
    assertThat(fourth.getHeaders()).containsEntry("Retry-After", "39600");
    assertThat(allowed("quota", "bob")).as("another key has its own quota").isTrue();

    ticker.advance(TO_MIDNIGHT_IN_PARIS.minusMillis(1));
    assertThat(allowed("quota", "alice")).as("a millisecond before midnight").isFalse();
    // A sliding window of a day would refuse for 13 hours more; the calendar starts a new day.
    ticker.advance(Duration.ofMillis(1));
    for (int i = 0; i < 3; i++) {
      assertThat(allowed("quota", "alice")).as("request %d of the next day", i + 1).isTrue();
    }
    assertThat(allowed("quota", "alice")).isFalse();
  }

  @Test
  void plan_calendarQuota_holdsTheKeysOnThePlan() {
    limiter
        .getConfig()
        .put(
            "api",
            new SlidingWindowRateLimiter.Config()
                .limit(Limit.of(1, Duration.ofDays(1)))
                .plan(
                    "monthly",
                    Limit.calendar(2, CalendarPeriod.DAY, PARIS),
                    Limit.of(10, Duration.ofSeconds(1)))
                .planKeys("monthly", "paid"));

    assertThat(allowed("api", "paid")).isTrue();
    assertThat(allowed("api", "paid")).isTrue();
    assertThat(allowed("api", "paid")).as("the plan's 2 of the day are spent").isFalse();
    assertThat(allowed("api", "free")).isTrue();
    assertThat(allowed("api", "free")).as("the route's 1 in any 24 hours").isFalse();

    ticker.advance(TO_MIDNIGHT_IN_PARIS);
    assertThat(allowed("api", "paid")).as("a new day in Paris").isTrue();
    assertThat(allowed("api", "free")).as("24 hours have not passed").isFalse();
  }
}
