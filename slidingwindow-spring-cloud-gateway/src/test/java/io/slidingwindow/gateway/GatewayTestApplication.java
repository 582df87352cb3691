package io.slidingwindow.gateway;

import java.net.URI;
import java.util.Map;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/** A gateway for the integration tests: the routes of {@code gateway-test.yml}. */
@SpringBootConfiguration
@EnableAutoConfiguration
class GatewayTestApplication {

  /** The request's {@code X-User} header; none means no key (the filter answers 403). */
  @Bean
  KeyResolver userKeyResolver() {
    return exchange -> Mono.justOrEmpty(exchange.getRequest().getHeaders().getFirst("X-User"));
  }

  /** Starts a gateway in front of {@code backend} with {@code properties} added. */
  static ConfigurableApplicationContext start(URI backend, Map<String, Object> properties) {
    return new SpringApplicationBuilder(GatewayTestApplication.class)
        .properties("spring.config.name=gateway-test", "backend.uri=" + backend)
        .properties(properties)
        .run();
  }

  /** The base URI of a started gateway. */
  static URI uri(ConfigurableApplicationContext gateway) {
    int port = ((WebServerApplicationContext) gateway).getWebServer().getPort();
    return URI.create("http://127.0.0.1:" + port);
  }
}
