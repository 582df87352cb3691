package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * What answers while Redis fails (core's {@link FailurePolicy}, {@code LOCAL} by default), and that
 * a caller's bad argument is thrown at once and never reaches Redis or the policy. Over a client
 * whose every call fails as a dropped connection would; no network.
 */
class FailurePolicyTest {

  private static final Limit FIVE_PER_MINUTE = Limit.of(5, Duration.ofMinutes(1));

  /** A fallback that records the keys it is asked about and grants them all. */
  private static final class Recording implements KeyedRateLimiter<String> {
    final List<String> asked = Collections.synchronizedList(new ArrayList<>());

    @Override
    public boolean tryAcquire(String key, long permits) {
      return decide(key, permits).allowed();
    }

    @Override
    public Decision decide(String key, long permits) {
      asked.add(key);
      return Decision.granted(7, Duration.ZERO, FIVE_PER_MINUTE);
    }

    @Override
    public List<Limit> limits() {
      return List.of(FIVE_PER_MINUTE);
    }
  }

  private static RedisRateLimiter.Builder downRedis(ScriptedClient client) {
    return RedisRateLimiter.builder(client.backend())
        .limit(FIVE_PER_MINUTE)
        .commandTimeout(Duration.ofSeconds(1));
  }

  @Test
  void defaultPolicy_isLocalWithTheSameLimits_eachPathCountsOnce() throws Exception {
    FakeTicker ticker = new FakeTicker();
    RedisRateLimiter limiter = downRedis(new ScriptedClient()).clientTime(ticker).build();
    int granted = 0;
    for (int i = 0; i < 8; i++) {
      Decision d =
          switch (i % 4) {
            case 0 -> limiter.decide("down", 1);
            case 1 -> limiter.decideAsync("down", 1).toCompletableFuture().get(5, TimeUnit.SECONDS);
            case 2 -> limiter.tryAcquire("down", 1) ? granted() : refused();
            default ->
                limiter.tryAcquireAsync("down", 1).toCompletableFuture().get(5, TimeUnit.SECONDS)
                    ? granted()
                    : refused();
          };
      granted += d.allowed() ? 1 : 0;
    }
    assertThat(granted).as("the local limiter's 5 per minute").isEqualTo(5);
    Decision refused = limiter.decide("down", 1);
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.limit()).isEqualTo(FIVE_PER_MINUTE);
    assertThat(limiter.decide("other", 5).allowed()).as("ids apart, locally too").isTrue();
    ticker.advance(Duration.ofMinutes(1).plusSeconds(1));
    assertThat(limiter.tryAcquire("down", 5)).as("on the limiter's clock").isTrue();
  }

  @Test
  void allow_grantsWithNothingRemaining() {
    RedisRateLimiter limiter =
        downRedis(new ScriptedClient()).failurePolicy(FailurePolicy.ALLOW).build();
    for (int i = 0; i < 10; i++) {
      Decision d = limiter.decide("down", 5);
      assertThat(d.allowed()).isTrue();
      assertThat(d.remaining()).isZero();
    }
  }

  @Test
  void refuse_refusesUntilTheBreakerProbes() {
    FakeTicker breakerClock = new FakeTicker();
    RedisRateLimiter limiter =
        downRedis(new ScriptedClient())
            .failurePolicy(FailurePolicy.REFUSE)
            .circuitBreaker(2, Duration.ofSeconds(3))
            .breakerTicker(breakerClock)
            .build();
    assertThat(limiter.decide("down", 1).allowed()).isFalse();
    Decision open = limiter.decide("down", 1);
    assertThat(open.allowed()).isFalse();
    assertThat(limiter.isBreakerOpen()).isTrue();
    assertThat(limiter.decide("down", 1).retryAfter()).isEqualTo(Duration.ofSeconds(3));
    breakerClock.advance(Duration.ofSeconds(3));
    assertThat(limiter.decide("down", 1).retryAfter())
        .as("the probe failed: open again, at least 1 ms")
        .isGreaterThanOrEqualTo(Duration.ofMillis(1));
  }

  /** As the resolver of plans is: asked with a stored key, a long id would lose its plan there. */
  @Test
  void givenFallback_isAskedWithTheIdAsGiven() {
    Recording share = new Recording();
    RedisRateLimiter limiter = downRedis(new ScriptedClient()).fallback(share).build();
    String longId = "k".repeat(100_000);
    String digested = LimiterKeys.bounded(longId);
    assertThat(limiter.decide("short", 1).remaining()).isEqualTo(7);
    assertThat(limiter.tryAcquire(longId, 1)).isTrue();
    assertThat(limiter.decide(digested, 1).allowed()).isTrue();
    assertThat(share.asked).containsExactly("short", longId, digested);
  }

  @Test
  void badArguments_throwAtOnceOnEveryPath_neverReachRedisOrThePolicy() {
    for (FailurePolicy policy : FailurePolicy.values()) {
      ScriptedClient client = new ScriptedClient();
      Recording fallback = new Recording();
      RedisRateLimiter.Builder builder = downRedis(client).failurePolicy(policy);
      if (policy == FailurePolicy.LOCAL) {
        builder.fallback(fallback);
      }
      RedisRateLimiter limiter = builder.circuitBreaker(1, Duration.ofHours(1)).build();
      List<Runnable> calls =
          List.of(
              () -> limiter.tryAcquire(null, 1),
              () -> limiter.decide(null, 1),
              () -> limiter.tryAcquireAsync(null, 1),
              () -> limiter.decideAsync(null, 1),
              () -> limiter.tryAcquire("id", 0),
              () -> limiter.decide("id", -1),
              () -> limiter.tryAcquireAsync("id", 6),
              () -> limiter.decideAsync("id", 0));
      for (Runnable call : calls) {
        assertThatThrownBy(call::run)
            .as(policy.name())
            .isInstanceOf(IllegalArgumentException.class);
      }
      assertThat(client.sent).as("commands sent under %s", policy).isEmpty();
      assertThat(fallback.asked).as("keys the fallback was asked").isEmpty();
      assertThat(limiter.isBreakerOpen()).as("a bad argument is no failure of Redis").isFalse();
    }
  }

  @Test
  void nullKey_messageNamesTheKey() {
    RedisRateLimiter limiter = downRedis(new ScriptedClient()).build();
    assertThatThrownBy(() -> limiter.decideAsync(null, 1)).hasMessageContaining("key");
  }

  @Test
  void counters_redisFailure_throwsRedisCallException() {
    RedisCounters failing =
        RedisCounters.builder(new ScriptedClient().backend())
            .commandTimeout(Duration.ofSeconds(1))
            .build();
    assertThatThrownBy(() -> failing.addAndGet("id", 1))
        .isInstanceOf(RedisCallException.class)
        .hasMessageContaining("scripted")
        .hasRootCauseMessage("connection dropped");
    RedisCounters silent =
        RedisCounters.builder(new ScriptedClient(ScriptedClient.NO_ANSWER).backend())
            .commandTimeout(Duration.ofMillis(20))
            .build();
    assertThatThrownBy(() -> silent.sum("id"))
        .isInstanceOf(RedisCallException.class)
        .hasMessageContaining("no answer from Redis within PT0.02S")
        .hasCauseInstanceOf(TimeoutException.class);
  }

  private static Decision granted() {
    return Decision.granted(0, Duration.ZERO, FIVE_PER_MINUTE);
  }

  private static Decision refused() {
    return Decision.refused(0, Duration.ofNanos(1), Duration.ofNanos(1), FIVE_PER_MINUTE);
  }
}
