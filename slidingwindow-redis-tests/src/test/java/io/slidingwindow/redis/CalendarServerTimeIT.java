package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.CalendarPeriod;
import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.Reservation;
import io.slidingwindow.testkit.FailingLimiter;
import java.time.Clock;
import java.time.Duration;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Calendar quotas with the server's clock, for each client: instances whose clocks differ by
 * seconds share one count per period, judged by the server's {@code TIME}; a key is gone once its
 * period ends; a clock off by more than a period is not decided; batched asynchronous calls and
 * Cluster. A day boundary seconds away is made with a zone whose offset puts local midnight there.
 */
class CalendarServerTimeIT {

  private static final AtomicLong IDS = new AtomicLong();

  private static String freshId() {
    return "calendar-server-it-" + IDS.incrementAndGet();
  }

  /** A zone whose local midnight falls {@code ahead} (whole seconds) from now; its epoch second. */
  private static ZoneOffset midnightIn(Duration ahead, long[] boundary) {
    long at = System.currentTimeMillis() / 1000 + 1 + ahead.toSeconds();
    long offset = -Math.floorMod(at, 86_400L);
    if (offset < -43_200) {
      offset += 86_400;
    }
    boundary[0] = at;
    return ZoneOffset.ofTotalSeconds((int) offset);
  }

  /** A limiter builder on {@code backend}, which must answer every call. */
  private static RedisRateLimiter.Builder builder(RedisBackend backend) {
    return RedisRateLimiter.builder(backend)
        .commandTimeout(Client.GENEROUS)
        .fallback(new FailingLimiter());
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void skewedClocks_acrossADayBoundary_serverTimeDecidesExactlyNPerPeriod(Client client) {
    long[] boundary = new long[1];
    ZoneOffset zone = midnightIn(Duration.ofSeconds(2), boundary);
    Limit daily = Limit.calendar(5, CalendarPeriod.DAY, zone);
    Clock system = Clock.systemUTC();
    List<RedisRateLimiter> limiters =
        List.of(
            builder(SharedRedis.backend(client))
                .limit(daily)
                .calendarClock(Clock.offset(system, Duration.ofSeconds(4)))
                .build(),
            builder(SharedRedis.backend(client))
                .limit(daily)
                .calendarClock(Clock.offset(system, Duration.ofSeconds(-4)))
                .build());
    String id = freshId();
    long boundaryMicros = boundary[0] * 1_000_000;
    long[] granted = new long[2]; // before and after the boundary, by the server's clock
    long[] calls = new long[1];
    long[] callsAfter = new long[1]; // decided after the boundary by the server's clock
    await()
        .atMost(Duration.ofSeconds(20))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(3))
        .until(
            () -> {
              long last = 0;
              for (RedisRateLimiter limiter : limiters) {
                long[] reply = limiter.tryAcquireWithTime(id, 1);
                assertThat(reply[0]).as("decided by Redis, call %s", calls[0]).isIn(0L, 1L);
                calls[0]++;
                if (reply[0] == 1) {
                  granted[reply[1] < boundaryMicros ? 0 : 1]++;
                }
                if (reply[1] >= boundaryMicros) {
                  callsAfter[0]++;
                }
                last = reply[1];
              }
              // Enough calls of the new day for its 5 and refusals past them, however slowly a
              // loaded machine gets them in; and 300 ms of it by the server's clock.
              return last >= boundaryMicros + 300_000 && callsAfter[0] >= 20;
            });
    assertThat(granted[0]).as("the day before, in %s calls", calls[0]).isEqualTo(5);
    assertThat(granted[1]).as("the day after, in %s calls", calls[0]).isEqualTo(5);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void expiry_calendarKey_goneOnceItsPeriodEnds(Client client) {
    long[] boundary = new long[1];
    ZoneOffset zone = midnightIn(Duration.ofSeconds(1), boundary);
    RedisRateLimiter limiter =
        builder(SharedRedis.backend(client))
            .limit(Limit.calendar(1, CalendarPeriod.DAY, zone))
            .build();
    String id = freshId();
    String key = limiter.keysOf(id).get(0);
    long[] first = limiterCall(limiter, id);
    assertThat(first[0]).isEqualTo(1);
    long pttl = Long.parseLong(SharedRedis.server().cli("PTTL", key).trim());
    long untilEnd = (boundary[0] * 1_000_000 - first[1] + 999) / 1000;
    assertThat(pttl)
        .as("ms until the day ends: %s", untilEnd)
        .isPositive()
        .isLessThanOrEqualTo(untilEnd);
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> SharedRedis.server().cli("EXISTS", key).trim().equals("0"));
    long[] next = limiterCall(limiter, id);
    assertThat(next[1]).as("the server's clock").isGreaterThanOrEqualTo(boundary[0] * 1_000_000);
    assertThat(next[0]).as("the next day").isEqualTo(1);
  }

  private static long[] limiterCall(RedisRateLimiter limiter, String id) {
    try {
      return limiter.tryAcquireWithTime(id, 1);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void clockOffByMoreThanAPeriod_notDecided_andNothingRecorded(Client client) {
    long[] boundary = new long[1];
    ZoneOffset zone = midnightIn(Duration.ofHours(12), boundary);
    Limit daily = Limit.calendar(3, CalendarPeriod.DAY, zone);
    RedisRateLimiter behind =
        RedisRateLimiter.builder(SharedRedis.backend(client))
            .commandTimeout(Client.GENEROUS)
            .failurePolicy(FailurePolicy.REFUSE)
            .circuitBreaker(1, Duration.ofHours(1))
            .calendarClock(Clock.offset(Clock.systemUTC(), Duration.ofDays(-3)))
            .limit(daily)
            .build();
    String id = freshId();
    for (int i = 0; i < 3; i++) {
      assertThat(behind.decide(id, 1).allowed()).as("the failure policy answers").isFalse();
    }
    assertThat(behind.isBreakerOpen()).as("Redis answered: no failure of Redis").isFalse();
    assertThatThrownBy(() -> behind.peek(id))
        .isInstanceOf(RedisCallException.class)
        .hasMessageContaining("outside the calendar periods sent");
    RedisRateLimiter right = builder(SharedRedis.backend(client)).limit(daily).build();
    assertThat(right.peek(id).limits().get(0).used()).as("nothing recorded").isZero();
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void decideAsync_manyAtOnce_grantsExactlyTheDaysQuota(Client client) throws Exception {
    ZoneOffset zone = midnightIn(Duration.ofHours(12), new long[1]);
    RedisRateLimiter limiter =
        builder(SharedRedis.backend(client))
            .limit(Limit.calendar(10, CalendarPeriod.DAY, zone))
            .build();
    String id = freshId();
    List<CompletableFuture<Decision>> decisions = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      decisions.add(limiter.decideAsync(id, 1).toCompletableFuture());
    }
    int granted = 0;
    for (CompletableFuture<Decision> d : decisions) {
      if (d.get(10, TimeUnit.SECONDS).allowed()) {
        granted++;
      }
    }
    assertThat(granted).isEqualTo(10);
    assertThat(limiter.peek(id).limits().get(0).used()).isEqualTo(10);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void cluster_slidingWindowAndCalendarQuota_oneSlotPerId(Client client) {
    ZoneOffset zone = midnightIn(Duration.ofHours(12), new long[1]);
    RedisRateLimiter limiter =
        builder(SharedCluster.backend(client))
            .limit(Limit.parse("3/1m"))
            .limit(Limit.calendar(5, CalendarPeriod.DAY, zone))
            .build();
    for (int n = 0; n < 4; n++) {
      String id = freshId();
      Reservation reservation = limiter.reserve(id, 2);
      assertThat(reservation.decision().allowed()).isTrue();
      assertThat(limiter.tryAcquire(id, 1)).isTrue();
      assertThat(limiter.tryAcquire(id, 1)).as("three a minute").isFalse();
      assertThat(reservation.refund()).isTrue();
      assertThat(limiter.peek(id).limits().get(1).used()).isEqualTo(1);
      limiter.reset(id);
      assertThat(limiter.peek(id).limits().get(1).used()).isZero();
    }
  }
}
