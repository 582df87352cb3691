package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class PlansTest {

  private static final Limit FIVE = Limit.of(5, Duration.ofSeconds(10));
  private static final Limit TWENTY = Limit.of(20, Duration.ofSeconds(10));

  @Test
  void plan_invalidArguments_areRejectedNamingTheParameter() {
    assertThatThrownBy(() -> Plan.of(" ", FIVE))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name");
    assertThatThrownBy(() -> Plan.of("free"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limits");
    assertThatThrownBy(() -> Plan.of("free", (Limit) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limits");
    assertThatThrownBy(() -> Plan.of("free", (List<Limit>) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limits");
    assertThat(Plan.of("free", FIVE)).isEqualTo(Plan.of("free", List.of(FIVE)));
    assertThat(Plan.of("free", FIVE)).isNotEqualTo(Plan.of("pro", FIVE));
    assertThat(Plan.of("free", FIVE).toString()).isEqualTo("Plan[free: 5/10s]");
    Map<String, Plan> withNull = new HashMap<>();
    withNull.put("k", null);
    assertThatThrownBy(() -> PlanResolver.of(withNull))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("plans");
  }

  @Test
  void decide_fullTable_refusesAPlannedKeyByItsPlansLongestLimit() {
    Limit hourly = Limit.of(100, Duration.ofHours(1));
    Plan pro = Plan.of("pro", TWENTY, hourly);
    KeyedRateLimiter<String> limiter =
        KeyedRateLimiter.builder()
            .limit(FIVE)
            .maxKeys(1)
            .onKeyOverflow(KeyOverflow.REFUSE)
            .ticker(new ManualTicker(0))
            .build(k -> k.startsWith("pro-") ? pro : null);
    assertThat(limiter.decide("first", 1).allowed()).isTrue();

    Decision planned = limiter.decide("pro-1", 1);
    Decision unplanned = limiter.decide("other", 1);

    assertThat(planned.isKeyOverflow()).isTrue();
    assertThat(planned.allowed()).isFalse();
    assertThat(planned.limit()).as("the plan's longest limit, not the rule's").isEqualTo(hourly);
    assertThat(planned.retryAfter()).isEqualTo(Duration.ofHours(1));
    assertThat(unplanned.isKeyOverflow()).isTrue();
    assertThat(unplanned.limit()).isEqualTo(FIVE);
    assertThat(unplanned.retryAfter()).isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void planOf_trackedKey_isThePlanItsStateKeepsUntilRefreshed() {
    Plan free = Plan.of("free", FIVE);
    Plan pro = Plan.of("pro", TWENTY);
    AtomicReference<Plan> plan = new AtomicReference<>(free);
    KeyedRateLimiter<String> limiter =
        KeyedRateLimiter.builder().limit(FIVE).ticker(new ManualTicker(0)).build(k -> plan.get());
    limiter.decide("k", 1);
    plan.set(pro);

    assertThat(limiter.planOf("k")).as("kept with the key's state").isEqualTo(free);
    assertThat(limiter.planOf("untracked")).as("asked for a key not tracked").isEqualTo(pro);
    limiter.refreshPlans();
    assertThat(limiter.planOf("k")).isEqualTo(pro);
    plan.set(null);
    limiter.refreshPlans();
    assertThat(limiter.planOf("k")).as("on no plan, even with the plan's very limits").isNull();
    assertThat(KeyedRateLimiter.builder().limit(FIVE).build().planOf("k")).isNull();
    assertThatThrownBy(() -> limiter.planOf(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
  }

  @Test
  void resolver_askedOncePerKeyUntilRefreshedOrEvicted() {
    AtomicInteger asked = new AtomicInteger();
    Plan free = Plan.of("free", FIVE);
    ManualTicker ticker = new ManualTicker(0);
    KeyedRateLimiter<String> limiter =
        KeyedRateLimiter.builder()
            .limit(Limit.of(1, Duration.ofSeconds(10)))
            .ticker(ticker)
            .build(
                key -> {
                  asked.incrementAndGet();
                  return key.startsWith("free") ? free : null;
                });
    for (int i = 0; i < 7; i++) {
      limiter.tryAcquire("free-1");
    }
    limiter.decide("other", 1);
    assertThat(asked).as("once per key").hasValue(2);
    assertThat(limiter.peek("free-1").remaining()).isZero();
    limiter.refreshPlans();
    limiter.tryAcquire("free-1");
    limiter.tryAcquire("free-1");
    assertThat(asked).as("once more after the refresh").hasValue(3);
    ticker.advance(Duration.ofSeconds(11).toNanos());
    limiter.cleanUp();
    limiter.tryAcquire("free-1");
    assertThat(asked).as("again once evicted").hasValue(4);
    assertThat(limiter.peek("untracked").plan()).isEmpty();
    assertThat(limiter.peek("free-untracked").plan()).contains("free");
    assertThat(limiter.limits())
        .as("the defaults")
        .containsExactly(Limit.of(1, Duration.ofSeconds(10)));
  }

  @Test
  void permits_beyondTheKeysPlan_refusedNotThrown() {
    KeyedRateLimiter<String> limiter =
        KeyedRateLimiter.builder()
            .limit(Limit.of(2, Duration.ofSeconds(10)))
            .build(PlanResolver.of(Map.of("pro", Plan.of("pro", TWENTY))));
    assertThat(limiter.tryAcquire("pro", 15)).isTrue();
    assertThat(limiter.tryAcquire("someone", 3)).as("beyond the defaults").isFalse();
    Decision beyond = limiter.decide("pro", 21);
    assertThat(beyond.allowed()).isFalse();
    assertThat(beyond.limit()).isEqualTo(TWENTY);
    assertThat(beyond.retryAfter()).isEqualTo(TWENTY.window());
    assertThat(limiter.peek("pro").limits().get(0).used()).as("not counted").isEqualTo(15);
    assertThatThrownBy(() -> limiter.tryAcquire("pro", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits");
    assertThatThrownBy(() -> limiter.refund("someone", 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("3");
    assertThat(limiter.refund("pro", 20).remaining()).isEqualTo(20);
  }

  @Test
  void resolverThatThrows_reachesTheCallerAndRecordsNothing() {
    KeyedRateLimiter<String> limiter =
        KeyedRateLimiter.builder()
            .limit(FIVE)
            .build(
                key -> {
                  if (key.equals("bad")) {
                    throw new IllegalStateException("no such customer");
                  }
                  return null;
                });
    assertThatThrownBy(() -> limiter.tryAcquire("bad"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("no such customer");
    assertThat(limiter.tryAcquire("good", 5)).isTrue();
  }

  @Test
  void planWithALimitThatCannotFit_failsTheCallOfItsKey() {
    Plan huge = Plan.of("huge", Limit.exact(1L << 40, Duration.ofDays(1)));
    KeyedRateLimiter<String> limiter =
        KeyedRateLimiter.builder().limit(FIVE).build(key -> key.equals("huge") ? huge : null);
    assertThatThrownBy(() -> limiter.tryAcquire("huge"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("precision");
    assertThat(limiter.tryAcquire("other")).isTrue();
  }

  @Test
  void quotaAndReservation_invalidArguments_areRejected() {
    assertThatThrownBy(() -> Quota.of(null, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limits");
    assertThatThrownBy(() -> new Quota.Usage(FIVE, -1, 5, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("used");
    assertThatThrownBy(() -> new Quota.Usage(FIVE, 0, 5, Duration.ofSeconds(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("resetAfter");
    assertThatThrownBy(() -> Reservation.refundable(Decision.granted(1, Duration.ZERO, FIVE), null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("refunder");
    Quota quota =
        Quota.of(
            "free",
            List.of(
                new Quota.Usage(FIVE, 2, 3, Duration.ofSeconds(4)),
                new Quota.Usage(TWENTY, 19, 1, Duration.ofSeconds(9))));
    assertThat(quota.remaining()).isEqualTo(1);
    assertThat(quota.plan()).contains("free");
  }

  /** The default reservation of a backend without its own refunds gives back its newest permits. */
  @Test
  void defaultReservation_refundsThroughRefund() throws Exception {
    AtomicInteger refunded = new AtomicInteger();
    KeyedRateLimiter<String> backend =
        new GrantingLimiter() {
          @Override
          public Quota refund(String key, long permits) {
            refunded.addAndGet((int) permits);
            return Quota.of(null, List.of(new Quota.Usage(FIVE, 0, 5, Duration.ZERO)));
          }
        };
    Reservation reservation = backend.reserve("k", 2);
    assertThat(reservation.refund()).isTrue();
    assertThat(reservation.refundAsync().toCompletableFuture().get()).isFalse();
    assertThat(refunded).hasValue(2);
    CompletableFuture<Reservation> async = backend.reserveAsync("k", null, 1).toCompletableFuture();
    assertThat(async.get().refundAsync().toCompletableFuture().get()).isTrue();
    assertThat(refunded).hasValue(3);
    assertThatThrownBy(() -> new GrantingLimiter().peek("k"))
        .isInstanceOf(UnsupportedOperationException.class);
  }

  /** A backend that grants everything and has no quota operation of its own. */
  private static class GrantingLimiter implements KeyedRateLimiter<String> {
    @Override
    public boolean tryAcquire(String key, long permits) {
      return true;
    }

    @Override
    public Decision decide(String key, long permits) {
      return Decision.granted(3, Duration.ZERO, FIVE);
    }

    @Override
    public List<Limit> limits() {
      return List.of(FIVE);
    }
  }

  /**
   * A limiter that counts refused attempts keeps, through a cut of a key's limit, every permit its
   * window holds and every refused attempt after it: neither is cut down to the lower limit, so a
   * raise in the same window or period grants nothing twice. Both kinds of limit.
   */
  @Test
  void countingRefused_cutThenRaise_grantsNothingTwice() {
    List<Limit[]> pairs =
        List.of(
            new Limit[] {FIVE, Limit.of(1, Duration.ofSeconds(10))},
            new Limit[] {
              Limit.calendar(5, CalendarPeriod.DAY, ZoneOffset.UTC),
              Limit.calendar(1, CalendarPeriod.DAY, ZoneOffset.UTC)
            });
    for (Limit[] pair : pairs) {
      Plan high = Plan.of("high", pair[0]);
      Plan low = Plan.of("low", pair[1]);
      AtomicReference<Plan> plan = new AtomicReference<>(high);
      ManualTicker ticker = new ManualTicker(0);
      KeyedRateLimiter<String> limiter =
          KeyedRateLimiter.builder()
              .limit(pair[0])
              .countRefusedAttempts(true)
              .ticker(ticker)
              .calendarClock(Clock.fixed(Instant.parse("2026-11-27T08:00:00Z"), ZoneOffset.UTC))
              .build(key -> plan.get());
      int granted = 0;
      for (int i = 0; i < 3; i++) {
        granted += limiter.tryAcquire("k") ? 1 : 0;
      }
      plan.set(low);
      limiter.refreshPlans();
      for (int i = 0; i < 2; i++) {
        assertThat(limiter.tryAcquire("k")).as("%s cut", pair[1]).isFalse();
      }
      assertThat(limiter.peek("k").limits().get(0).used())
          .as("%s: the three granted are all kept", pair[1])
          .isGreaterThanOrEqualTo(3);
      plan.set(high);
      limiter.refreshPlans();
      for (int i = 0; i < 5; i++) {
        granted += limiter.tryAcquire("k") ? 1 : 0;
      }
      assertThat(granted).as("%s: granted in one window or period", pair[0]).isLessThanOrEqualTo(5);
    }
  }
}
