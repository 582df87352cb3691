package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RateLimitServerBuilderTest {

  @Test
  void redisStores_secondStore_throwsNamingBoth() {
    RateLimitServer.Builder builder = RateLimitServer.builder().redis("redis://127.0.0.1:1");

    assertThatThrownBy(() -> builder.redisCluster(List.of("redis://127.0.0.1:2")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("standalone redis://127.0.0.1:1")
        .hasMessageContaining("cluster [redis://127.0.0.1:2]");
    assertThatThrownBy(
            () -> builder.redisSentinel(List.of("redis://127.0.0.1:3"), "m", null, null, null))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("sentinel m");
  }

  @Test
  void redisSentinel_emptyUrisOrMaster_throwsNamingParameter() {
    RateLimitServer.Builder builder = RateLimitServer.builder();

    assertThatThrownBy(() -> builder.redisSentinel(List.of(), "m", null, null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sentinelUris")
        .hasMessageContaining("[]");
    assertThatThrownBy(
            () -> builder.redisSentinel(Arrays.asList("redis://a:1", ""), "m", null, null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sentinelUris");
    assertThatThrownBy(() -> builder.redisSentinel(List.of("redis://a:1"), "", null, null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("masterName");
    assertThatThrownBy(() -> builder.redisCluster(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("seedUris")
        .hasMessageContaining("null");
  }

  @Test
  void redisCommandTimeout_notPositiveOrOverAnHour_throwsNamingValue() {
    RateLimitServer.Builder builder = RateLimitServer.builder();

    for (Duration bad :
        Arrays.asList(null, Duration.ZERO, Duration.ofMillis(-1), Duration.ofHours(2))) {
      assertThatThrownBy(() -> builder.redisCommandTimeout(bad))
          .as("%s", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("redisCommandTimeout")
          .hasMessageContaining(String.valueOf(bad));
    }
  }

  @Test
  void redisCircuitBreaker_badValues_throwNamingParameter() {
    RateLimitServer.Builder builder = RateLimitServer.builder();

    assertThatThrownBy(() -> builder.redisCircuitBreaker(0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("consecutiveFailures")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> builder.redisCircuitBreaker(3, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("openFor")
        .hasMessageContaining("PT0S");
  }

  @Test
  void start_redisTimeoutOrBreakerWithoutAStore_throwsNamingBoth(@TempDir Path dir)
      throws Exception {
    Path config = Files.writeString(dir.resolve("c.yaml"), "domain: d\ndescriptors: []\n");

    assertThatThrownBy(
            () ->
                RateLimitServer.builder()
                    .config(config)
                    .redisCommandTimeout(Duration.ofSeconds(1))
                    .start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("redisCommandTimeout")
        .hasMessageContaining("Redis store");
    assertThatThrownBy(
            () ->
                RateLimitServer.builder()
                    .config(config)
                    .redisCircuitBreaker(2, Duration.ofSeconds(1))
                    .start())
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("redisCircuitBreaker");
  }
}
