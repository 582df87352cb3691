package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * While Redis fails, the in-process fallback decides with the ids' plans; it keeps each id's plan
 * until told, so {@link RedisRateLimiter#refreshPlans()} passes a change of plans on to it, and the
 * id keeps its counts there. Over a client whose every call fails; no network.
 */
class FallbackPlansTest {

  @Test
  void refreshPlans_redisDown_theFallbackTakesThePlansNewLimitsAndKeepsTheCounts() {
    AtomicReference<Plan> free = new AtomicReference<>(Plan.of("free", Limit.parse("5/1m")));
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(new ScriptedClient().backend())
            .limit(Limit.parse("2/1m"))
            .commandTimeout(Duration.ofSeconds(1))
            .clientTime(new FakeTicker())
            .build(id -> id.startsWith("free-") ? free.get() : null);
    assertThat(granted(limiter, "free-a", 7)).as("free, locally").isEqualTo(5);

    free.set(Plan.of("free", Limit.parse("8/1m")));
    limiter.refreshPlans();
    assertThat(granted(limiter, "free-a", 6)).as("the five kept, three more of 8").isEqualTo(3);

    free.set(Plan.of("free", Limit.parse("2/1m")));
    limiter.refreshPlans();
    assertThat(granted(limiter, "free-b", 4)).as("a new id on the lowered plan").isEqualTo(2);
    assertThat(granted(limiter, "free-a", 1)).isZero();
    assertThat(granted(limiter, "none", 3)).as("the default limits").isEqualTo(2);
  }

  /**
   * The Redis calls ask the resolver with the id as given, so the fallback must too: asked with the
   * stored key, an id longer than 256 characters (its digest) would lose its plan while Redis is
   * down, and get the default limits instead.
   */
  @Test
  void longIdOnAPlan_redisDown_theFallbackKeepsItsPlan() {
    String longId = "free-" + "x".repeat(300);
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(new ScriptedClient().backend())
            .limit(Limit.parse("2/1m"))
            .commandTimeout(Duration.ofSeconds(1))
            .clientTime(new FakeTicker())
            .build(id -> id.startsWith("free-") ? Plan.of("free", Limit.parse("5/1m")) : null);
    assertThat(limiter.planOf(longId).name()).isEqualTo("free");
    assertThat(granted(limiter, "free-short", 7)).as("a short id on free, locally").isEqualTo(5);
    assertThat(granted(limiter, longId, 7)).as("a long id on free, locally").isEqualTo(5);
    assertThat(granted(limiter, longId + "y", 7)).as("another long id, apart").isEqualTo(5);
  }

  /**
   * A fallback given with the same plans, as the starter builds it, keyed on ids that a web filter
   * bounded already: a plan key of more than 256 characters is listed by its digest, which the
   * Redis calls ask with; the fallback must be asked with it too, not with its digest again.
   */
  @Test
  void givenFallbackWithThePlans_digestedId_keepsItsPlan() {
    String listed = LimiterKeys.bounded("key-" + "x".repeat(300));
    PlanResolver<String> plans =
        id -> id.equals(listed) ? Plan.of("gold", Limit.parse("5/1m")) : null;
    FakeTicker ticker = new FakeTicker();
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(new ScriptedClient().backend())
            .limit(Limit.parse("2/1m"))
            .commandTimeout(Duration.ofSeconds(1))
            .clientTime(ticker)
            .fallback(
                KeyedRateLimiter.builder().limit(Limit.parse("2/1m")).ticker(ticker).build(plans))
            .build(plans);
    assertThat(limiter.planOf(listed).name()).isEqualTo("gold");
    assertThat(granted(limiter, listed, 7)).as("gold, locally").isEqualTo(5);
  }

  private static int granted(RedisRateLimiter limiter, String id, int calls) {
    int granted = 0;
    for (int i = 0; i < calls; i++) {
      granted += limiter.tryAcquire(id, 1) ? 1 : 0;
    }
    return granted;
  }
}
