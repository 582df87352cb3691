package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/** The plans of {@link GatewayPlansContract} with the windows in the gateway's memory. */
@WithoutRedisServer
class GatewayPlansIT extends GatewayPlansContract {

  @Override
  ConfigurableApplicationContext startGateway(URI backend) {
    return PlansGateway.start(backend, Map.of());
  }

  /** The real application's start-up stops (the default filters: the routes' list is written). */
  @Test
  void startUp_planKeysOfAnUnknownPlan_stopsNamingTheArgument() {
    String filter = "spring.cloud.gateway.server.webflux.default-filters[0].";
    String args = filter + "args.sliding-window-rate-limiter.";

    assertThatThrownBy(
            () ->
                PlansGateway.start(
                    URI.create("http://127.0.0.1:9"),
                    Map.of(
                        filter + "name", "RequestRateLimiter",
                        args + "limits[0].permits", "2",
                        args + "limits[0].window", "10s",
                        args + "plans.free.limits[0].permits", "5",
                        args + "plans.free.limits[0].window", "10s",
                        args + "plan-keys.gold[0]", "header:x-api-key:free-key-1")))
        .hasStackTraceContaining(
            "sliding-window-rate-limiter.plan-keys.gold: no plan named 'gold' in"
                + " sliding-window-rate-limiter.plans [free]");
  }
}
