package io.slidingwindow.boot4;

import java.net.URI;
import java.util.Map;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/** Starts this module's applications on a random loopback port. */
final class Apps {

  private static final String GATEWAY_REDIS =
      "org.springframework.cloud.gateway.config.GatewayRedisAutoConfiguration";

  private Apps() {}

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
