package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.CalendarPeriod;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Quota;
import io.slidingwindow.Reservation;
import io.slidingwindow.testkit.FailingLimiter;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Plans and quota operations of the Redis limiter on the shared standalone server, for each client,
 * with Redis's clock: what the kits (which drive a fake clock) cannot show.
 */
class QuotaOperationsIT {

  private static final AtomicLong IDS = new AtomicLong();

  private static final Plan FREE = Plan.of("free", Limit.parse("5/10s"));
  private static final Plan PRO = Plan.of("pro", Limit.parse("20/10s"));

  private static String freshId() {
    return "quota-it-" + IDS.incrementAndGet();
  }

  /** A limiter builder on the shared server whose Redis must answer every call. */
  static RedisRateLimiter.Builder builder(Client client) {
    return RedisRateLimiter.builder(SharedRedis.backend(client))
        .commandTimeout(Client.GENEROUS)
        .fallback(new FailingLimiter());
  }

  /** How many of {@code attempts} single permits {@code id} is granted. */
  static int grants(RedisRateLimiter limiter, String id, int attempts) {
    int granted = 0;
    for (int i = 0; i < attempts; i++) {
      if (limiter.tryAcquire(id, 1)) {
        granted++;
      }
    }
    return granted;
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void plans_serverTime_eachKeyGetsItsPlansLimits(Client client) {
    String one = freshId();
    String two = freshId();
    RedisRateLimiter limiter =
        builder(client)
            .limit(Limit.parse("2/10s"))
            .build(PlanResolver.of(Map.of(one, FREE, two, PRO)));
    assertThat(grants(limiter, two, 25)).as("pro").isEqualTo(20);
    assertThat(grants(limiter, one, 8)).as("free").isEqualTo(5);
    assertThat(grants(limiter, freshId(), 5)).as("no plan").isEqualTo(2);
    Quota quota = limiter.peek(one);
    assertThat(quota.plan()).contains("free");
    assertThat(quota.remaining()).isZero();
    assertThat(quota.limits().get(0).resetAfter()).isPositive();
    limiter.reset(one);
    assertThat(limiter.peek(one).remaining()).isEqualTo(5);
    assertThat(grants(limiter, one, 6)).as("free after a reset").isEqualTo(5);
    assertThat(grants(limiter, two, 1)).as("pro stays spent").isZero();
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void reservation_serverTime_refundGivesItsPermitsBackOnce(Client client) throws Exception {
    RedisRateLimiter limiter = builder(client).limit(Limit.parse("3/1m")).build();
    String id = freshId();
    Reservation first = limiter.reserve(id, 2);
    assertThat(first.isRefundable()).isTrue();
    assertThat(limiter.tryAcquire(id, 1)).isTrue();
    assertThat(limiter.decide(id, 1).allowed()).as("full").isFalse();
    assertThat(first.refund()).isTrue();
    assertThat(first.refund()).isFalse();
    assertThat(limiter.peek(id).limits().get(0).used()).isEqualTo(1);
    Reservation second =
        limiter.reserveAsync(id, null, 2).toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(second.decision().allowed()).isTrue();
    assertThat(second.refundAsync().toCompletableFuture().get(10, TimeUnit.SECONDS)).isTrue();
    assertThat(limiter.peekAsync(id).toCompletableFuture().get(10, TimeUnit.SECONDS).remaining())
        .isEqualTo(2);
    assertThat(limiter.reserve(id, 3).isRefundable()).as("refused").isFalse();
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void refundAndReset_afterARememberedRefusal_grantAgainAtOnce(Client client) throws Exception {
    RedisRateLimiter limiter = builder(client).limit(Limit.parse("2/1m")).build();
    String id = freshId();
    assertThat(grants(limiter, id, 3)).isEqualTo(2);
    assertThat(limiter.decide(id, 1).allowed()).as("remembered refusal").isFalse();
    assertThat(limiter.refund(id, 1).remaining()).isEqualTo(1);
    assertThat(limiter.tryAcquire(id, 1)).as("the refund reached the local cache too").isTrue();
    assertThat(limiter.tryAcquire(id, 1)).isFalse();
    limiter.resetAsync(id).toCompletableFuture().get(10, TimeUnit.SECONDS);
    assertThat(limiter.tryAcquire(id, 1)).as("after a reset").isTrue();
    assertThat(
            limiter.refundAsync(id, 2).toCompletableFuture().get(10, TimeUnit.SECONDS).remaining())
        .as("never below zero")
        .isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void calendarKeyOfAnotherType_notDecidedAndQuotaOperationsThrow(Client client) {
    Limit monthly = Limit.calendar(10_000, CalendarPeriod.MONTH, ZoneId.of("Europe/Paris"));
    String id = freshId();
    RedisRateLimiter limiter =
        builder(client)
            .limit(Limit.parse("2/10s"))
            .build(key -> key.equals(id) ? Plan.of("monthly", monthly) : null);
    String key = limiter.keysOf(id).get(0);
    assertThat(key).endsWith(":month@Europe/Paris");
    SharedRedis.server().cli("RPUSH", key, "not a count");
    assertThatThrownBy(() -> limiter.peek(id))
        .isInstanceOf(RedisCallException.class)
        .hasMessageContaining("does not hold a limiter state");
    assertThatThrownBy(() -> limiter.tryAcquire(id, 1))
        .as("the failure policy's fallback is asked")
        .isInstanceOf(AssertionError.class);
    SharedRedis.server().cli("DEL", key);
    SharedRedis.server().cli("SET", key, "sixteen bytes..!");
    assertThatThrownBy(() -> limiter.refund(id, 1)).isInstanceOf(RedisCallException.class);
    assertThat(SharedRedis.server().cli("GET", key).trim()).isEqualTo("sixteen bytes..!");
    assertThat(limiter.tryAcquire(freshId(), 1)).as("ids on other plans").isTrue();
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void keyOfAnotherType_quotaOperationsThrowRedisCallException(Client client) {
    RedisRateLimiter limiter = builder(client).limit(Limit.parse("2/10s")).build();
    String id = freshId();
    SharedRedis.server().cli("SET", limiter.keysOf(id).get(0), "not a limiter state");
    assertThatThrownBy(() -> limiter.peek(id)).isInstanceOf(RedisCallException.class);
    assertThatThrownBy(() -> limiter.refund(id, 1)).isInstanceOf(RedisCallException.class);
    assertThatThrownBy(() -> limiter.peekAsync(id).toCompletableFuture().join())
        .isInstanceOf(CompletionException.class)
        .hasCauseInstanceOf(RedisCallException.class);
    limiter.reset(id);
    assertThat(limiter.peek(id).remaining())
        .as("a reset deletes whatever the keys held")
        .isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void invalidArguments_rejectedBeforeRedis(Client client) {
    RedisRateLimiter limiter = builder(client).limit(Limit.parse("2/10s")).build();
    assertThatThrownBy(() -> limiter.peek(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
    assertThatThrownBy(() -> limiter.refund("x", 3))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("3");
  }

  /**
   * With plans a key's expiry depends on its own window: a plan with a longer window elsewhere does
   * not lengthen it, and a plan without one cannot shorten it below what its runs need.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void plans_expiry_eachKeyByItsOwnWindow(Client client) {
    String id = freshId();
    Plan both = Plan.of("both", Limit.parse("5/1s"), Limit.parse("100/1h"));
    RedisRateLimiter limiter =
        builder(client).limit(Limit.parse("5/1s")).build(key -> key.equals(id) ? both : null);
    assertThat(limiter.tryAcquire(id, 1)).isTrue();
    List<String> keys = limiter.keysOf(id);
    assertThat(keys).hasSize(2).allSatisfy(key -> assertThat(key).contains("}:w"));
    long second = Long.parseLong(SharedRedis.server().cli("PTTL", keys.get(0)));
    long hour = Long.parseLong(SharedRedis.server().cli("PTTL", keys.get(1)));
    assertThat(second).as("the 1 s window's key").isPositive().isLessThanOrEqualTo(1_500);
    assertThat(hour).as("the 1 h window's key").isGreaterThan(3_600_000);
  }

  /** Limits of one plan with the same window share a key and record each grant once. */
  @ParameterizedTest
  @EnumSource(Client.class)
  void plans_twoLimitsOfOneWindow_shareAKeyAndTheFewestPermitsBind(Client client) {
    String id = freshId();
    Plan twice = Plan.of("twice", Limit.parse("7/1m"), Limit.parse("3/1m"));
    RedisRateLimiter limiter =
        builder(client).limit(Limit.parse("9/1m")).build(key -> key.equals(id) ? twice : null);
    assertThat(limiter.keysOf(id)).hasSize(1);
    assertThat(grants(limiter, id, 5)).isEqualTo(3);
    Quota quota = limiter.peek(id);
    assertThat(quota.limits()).extracting(Quota.Usage::used).containsExactly(3L, 3L);
    assertThat(quota.limits()).extracting(Quota.Usage::remaining).containsExactly(4L, 0L);
    assertThat(limiter.decide(id, 1).limit()).isEqualTo(Limit.parse("3/1m"));
  }

  /** A peek of an id whose runs have all left writes nothing: the key stays as it was. */
  @ParameterizedTest
  @EnumSource(Client.class)
  void peek_keyWhoseRunsLeft_writesNothing(Client client) {
    AtomicLong now = new AtomicLong(1_000_000_000L);
    RedisRateLimiter limiter =
        builder(client).limit(Limit.parse("2/10s")).clientTime(now::get).build();
    String id = freshId();
    assertThat(limiter.tryAcquire(id, 1)).isTrue();
    String key = limiter.keysOf(id).get(0);
    now.addAndGet(TimeUnit.SECONDS.toNanos(11));
    assertThat(limiter.peek(id).limits().get(0).used()).isZero();
    assertThat(SharedRedis.server().cli("LLEN", key)).as("not deleted by the peek").isEqualTo("1");
    assertThat(limiter.decide(id, 1).allowed()).isTrue();
    assertThat(limiter.peek(id).limits().get(0).used()).isEqualTo(1);
  }
}
