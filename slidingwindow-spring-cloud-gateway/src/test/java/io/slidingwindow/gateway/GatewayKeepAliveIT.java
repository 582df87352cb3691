package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.http.KeptAliveConnection;
import io.slidingwindow.testkit.http.LoopbackBackend;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A kept-alive HTTP/1.1 connection stays served after a refusal of a request that waited behind
 * another on it. Reactor Netty before 1.3.8 queues a request that arrives before the previous
 * exchange has ended; when the queued request is answered on the thread that dispatches it, that
 * thread never asks to read the connection again, and the next request waits unread until the
 * client gives up. The limiter decides a refusal at once (in memory; on Redis, a key its last reply
 * left exhausted), so the gateway must not write it on that thread.
 */
class GatewayKeepAliveIT {

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"memory", "redis"})
  void keptAliveConnection_refusalOfAQueuedRequest_nextRequestIsAnswered(String store) {
    RedisServerProcess redis = store.equals("redis") ? RedisServerProcess.start() : null;
    Map<String, Object> properties = new HashMap<>();
    // gateway-test.yml serves one request per connection; this test needs the default, no limit.
    properties.put("gateway-test.keep-alive-requests", "-1");
    if (redis != null) {
      properties.put("slidingwindow.redis.uri", redis.uri());
      // a loaded machine must not time out into the failure policy, which decides alone
      properties.put("slidingwindow.redis.command-timeout", "5s");
      properties.put("slidingwindow.gateway.timeout", "10s");
    }
    try (LoopbackBackend backend = LoopbackBackend.start();
        ConfigurableApplicationContext gateway =
            GatewayTestApplication.start(backend.uri(), properties);
        KeptAliveConnection connection =
            KeptAliveConnection.open(GatewayTestApplication.uri(gateway).getPort(), Http.TIMEOUT)) {
      // Route "orders": 3 per minute. Two granted one at a time, then the third (granted, so it
      // goes to the backend and ends later) and the fourth (refused at once) in one write, so that
      // the fourth is queued behind the third.
      for (int i = 1; i <= 2; i++) {
        connection.send(KeptAliveConnection.get("/orders/" + i, "X-User", "kim"));
        assertThat(connection.status("request " + i)).isEqualTo(200);
      }
      connection.send(
          KeptAliveConnection.get("/orders/3", "X-User", "kim"),
          KeptAliveConnection.get("/orders/4", "X-User", "kim"));
      assertThat(connection.status("request 3")).isEqualTo(200);
      assertThat(connection.status("request 4, queued behind 3")).isEqualTo(429);

      connection.send(KeptAliveConnection.get("/orders/5", "X-User", "kim"));
      assertThat(connection.status("request 5, on the same connection")).isEqualTo(429);
      assertThat(backend.hits()).as("requests that reached the backend").isEqualTo(3);
    } finally {
      if (redis != null) {
        redis.close();
      }
    }
  }
}
