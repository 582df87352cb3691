package io.slidingwindow.boot4;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.util.HashMap;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/** Starts this module's applications on a random loopback port. */
final class Apps {

  /** Spring Cloud Gateway's Redis configuration, left out of the other applications. */
  static final String GATEWAY_REDIS =
      "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration";

  private Apps() {}

  /**
   * The handlers the MVC and the WebFlux application share (the same annotations serve both): items
   * for a filter rule, and orders limited by {@link RateLimit} to 2 a minute per order.
   */
  @RestController
  static class ItemsAndOrders {
    @GetMapping("/api/items/{id}")
    String item(@PathVariable("id") String id) {
      return "item " + id;
    }

    @GetMapping("/orders/{id}")
    @RateLimit(limits = "2/1m", key = "pathVariables['id']", name = "order-reads")
    String order(@PathVariable("id") String id) {
      return "order " + id;
    }
  }

  /**
   * {@code properties} and the usual {@code spring.data.redis.host} and {@code port} of {@code
   * redis}.
   */
  static Map<String, Object> withRedis(RedisServerProcess redis, Map<String, Object> properties) {
    Map<String, Object> all = new HashMap<>(properties);
    all.put("spring.data.redis.host", "127.0.0.1");
    all.put("spring.data.redis.port", redis.port());
    // Counts the tests compare must all be in Redis: with the 50 ms default, a loaded machine's
    // slow call would be answered by the in-process fallback and counted there instead.
    all.putIfAbsent("slidingwindow.redis.command-timeout", "5s");
    return all;
  }

  /**
   * Runs {@code application} with a web server on 127.0.0.1 and a free port, the properties given
   * added.
   */
  static ConfigurableApplicationContext start(
      Class<?> application, Map<String, Object> properties) {
    return new SpringApplicationBuilder(application)
        .properties("server.address=127.0.0.1", "server.port=0", "spring.main.banner-mode=off")
        .properties(properties)
        .run();
  }

  /**
   * As {@link #start}, for the applications other than the gateway: Spring Cloud Gateway is on this
   * module's class path (for GatewayBoot4IT), so they turn it off, and leave out its Redis
   * configuration, which starts even then.
   */
  static ConfigurableApplicationContext startWithoutGateway(
      Class<?> application, Map<String, Object> properties) {
    return new SpringApplicationBuilder(application)
        .properties(
            "server.address=127.0.0.1",
            "server.port=0",
            "spring.main.banner-mode=off",
            "spring.cloud.gateway.server.webflux.enabled=false",
            "spring.autoconfigure.exclude=" + GATEWAY_REDIS)
        .properties(properties)
        .run();
  }

  /** The base URI of a started application. */
  static URI uri(ConfigurableApplicationContext context) {
    String port = context.getEnvironment().getRequiredProperty("local.server.port");
    return URI.create("http://127.0.0.1:" + port);
  }
}
