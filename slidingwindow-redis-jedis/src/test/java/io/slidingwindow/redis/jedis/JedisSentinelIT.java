package io.slidingwindow.redis.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.Limit;
import io.slidingwindow.redis.FailurePolicy;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.testkit.redis.RedisSentinelProcesses;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A limiter over Jedis through Sentinel: it works, and after the master is killed it follows. */
class JedisSentinelIT {

  @Test
  void sentinelBackend_masterKilled_followsTheNewMaster() {
    try (RedisSentinelProcesses group = RedisSentinelProcesses.start("mymaster", 2, 3);
        RedisBackend backend =
            JedisBackends.sentinel(group.sentinelUris(), "mymaster", Duration.ofMillis(200))) {
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
      // failClosed refuses while Redis fails; a grant with 1 left is Redis answering again.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> limiter.decide("sentinel-after", 1).allowed());
      assertThat(limiter.decide("sentinel-after", 1).remaining()).isEqualTo(1);
    }
  }
}
