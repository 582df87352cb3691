package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.Limit;
import io.slidingwindow.testkit.redis.RedisSentinelProcesses;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A limiter through Sentinel: it works, and after the master is killed it follows the new one. */
class RedisSentinelIT {

  @Test
  void sentinelBackend_masterKilled_followsTheNewMaster() {
    try (RedisSentinelProcesses group = RedisSentinelProcesses.start("mymaster", 2, 3);
        RedisBackend backend = RedisBackend.sentinel(group.sentinelUris(), "mymaster")) {
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(backend)
              .limit(Limit.of(3, Duration.ofMinutes(10)))
              .commandTimeout(Duration.ofMillis(200))
              .circuitBreaker(3, Duration.ofMillis(200))
              .failurePolicy(FailurePolicy.failClosed())
              .build();
      assertThat(limiter.decide("sentinel", 1).remaining()).isEqualTo(2);
      group.killMaster();
      group.awaitFailover();
      // failClosed refuses while Redis fails; a grant with 1 left is Redis answering again. The
      // grant made before the failover may or may not have reached the replica in time.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> limiter.decide("sentinel-after", 1).allowed());
      assertThat(limiter.decide("sentinel-after", 1).remaining()).isEqualTo(1);
    }
  }
}
