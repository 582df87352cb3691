package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FailingLimiter;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The core conformance kit against a 3-master, 3-replica Redis Cluster, in client-time mode, and
 * awkward ids with several limits (several keys per call) that must never cross slots.
 */
class RedisClusterConformanceIT extends RedisConformance {

  @Override
  RedisBackend backend() {
    return SharedCluster.backend();
  }

  @Test
  void awkwardIdsWithThreeLimits_answeredByRedisOnEveryMaster() {
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(SharedCluster.backend())
            .limit(Limit.of(1, Duration.ofMinutes(1)))
            .limit(Limit.of(5, Duration.ofHours(1)))
            .limit(Limit.exact(3, Duration.ofSeconds(10)))
            .commandTimeout(Duration.ofSeconds(5))
            .failurePolicy(FailurePolicy.fallbackTo(new FailingLimiter()))
            .build();
    List<String> ids =
        List.of(
            "",
            "{",
            "}",
            "{}",
            "}{",
            "\r\n",
            "\0",
            "\uD800",
            "\uD83D\uDE00",
            "x".repeat(RedisRateLimiter.MAX_ID_BYTES));
    Set<Integer> slots = new HashSet<>();
    for (int i = 0; i < 60; i++) {
      String id = i < ids.size() ? ids.get(i) : "{cluster-" + i + "}";
      slots.add(SlotHash.getSlot(limiter.keysOf(id).get(0)));
      assertThat(limiter.decide(id, 1).allowed()).as("first call, id #%d", i).isTrue();
      assertThat(limiter.decide(id, 1).allowed()).as("second call, id #%d", i).isFalse();
    }
    assertThat(slots.stream().filter(s -> s < 5461).count())
        .as("ids on the first master")
        .isPositive();
    assertThat(slots.stream().filter(s -> s > 10922).count())
        .as("ids on the last master")
        .isPositive();
  }
}
