package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
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

  private static int granted(RedisRateLimiter limiter, String id, int calls) {
    int granted = 0;
    for (int i = 0; i < calls; i++) {
      granted += limiter.tryAcquire(id, 1) ? 1 : 0;
    }
    return granted;
  }
}
