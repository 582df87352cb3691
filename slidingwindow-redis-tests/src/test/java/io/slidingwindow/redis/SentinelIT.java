package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.testkit.redis.RedisSentinelProcesses;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Limiters and counters through Sentinel, for each client, on a group of each test's own: they work
 * (every path of the limiter, the counters, the health probe), and after the master is killed they
 * follow the new one.
 */
class SentinelIT {

  @ParameterizedTest
  @EnumSource(Client.class)
  void sentinelBackend_masterKilled_followsTheNewMaster(Client client) {
    Duration timeout = Duration.ofMillis(200);
    try (RedisSentinelProcesses group = RedisSentinelProcesses.start("mymaster", 2, 3);
        RedisBackend backend = client.sentinel(group.sentinelUris(), "mymaster", timeout)) {
      RedisRateLimiter limiter = SentinelLimiters.threeInTenMinutes(backend, timeout);
      assertThat(limiter.decide("sentinel", 1).remaining()).isEqualTo(2);
      assertThat(limiter.tryAcquireAsync("sentinel", 1).toCompletableFuture().join()).isTrue();
      assertThat(limiter.decideAsync("sentinel", 1).toCompletableFuture().join().remaining())
          .isZero();
      assertThat(limiter.tryAcquire("sentinel", 1)).isFalse();
      RedisCounters counters = RedisCounters.builder(backend).commandTimeout(timeout).build();
      assertThat(counters.addAndGet("logins", 2)).isEqualTo(2);
      assertThat(counters.addAndGet("logins", 3)).isEqualTo(5);
      assertThat(counters.count("logins")).isEqualTo(2);
      assertThat(backend.health(Duration.ofSeconds(2)).up()).isTrue();
      assertThat(group.master().cli("DBSIZE")).as("keys on the master").isNotEqualTo("0");

      group.killMaster();
      group.awaitFailover();
      // REFUSE refuses while Redis fails; a grant with 1 left is Redis answering again. The grant
      // made before the failover may or may not have reached the replica in time.
      await()
          .atMost(Duration.ofSeconds(60))
          .until(() -> limiter.decide("sentinel-after", 1).allowed());
      assertThat(limiter.decide("sentinel-after", 1).remaining()).isEqualTo(1);
    }
  }
}
