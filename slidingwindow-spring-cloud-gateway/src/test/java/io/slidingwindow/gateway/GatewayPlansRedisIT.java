package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/** The plans of {@link GatewayPlansContract} with the windows in a real redis-server. */
class GatewayPlansRedisIT extends GatewayPlansContract {

  private RedisServerProcess redis;

  @Override
  ConfigurableApplicationContext startGateway(URI backend) {
    redis = RedisServerProcess.start();
    return PlansGateway.start(
        backend,
        Map.of(
            "slidingwindow.redis.uri",
            redis.uri(),
            "slidingwindow.redis.on-failure",
            "refuse",
            // a loaded machine must not time out into the failure policy, which decides alone
            "slidingwindow.redis.command-timeout",
            "5s",
            "slidingwindow.gateway.timeout",
            "10s"));
  }

  @AfterAll
  void stopRedis() {
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void route_keysOnPlans_countInRedis() {
    assertThat(granted(send("/plans/r", "free-key-2", 1))).isOne();

    // The id in a limit's key is "u" and the Base64url of the key the route counts.
    String id =
        Base64.getUrlEncoder()
            .withoutPadding()
            .encodeToString("header:x-api-key:free-key-2".getBytes(StandardCharsets.UTF_8));
    assertThat(redis.cli("KEYS", "sw:gateway.plans:*")).contains("{u" + id + "}:w10000000:");
  }
}
