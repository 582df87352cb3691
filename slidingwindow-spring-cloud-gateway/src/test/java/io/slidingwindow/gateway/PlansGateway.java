package io.slidingwindow.gateway;

import io.slidingwindow.http.ClientAddresses;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/** A gateway whose route "plans" sells plans ({@code gateway-plans.yml}), keyed on issued keys. */
@SpringBootConfiguration
@EnableAutoConfiguration
class PlansGateway {

  /** The API key if the gateway issued it ({@code gateway.api-keys}), else the client address. */
  @Bean
  KeyResolver apiKeyResolver(
      @Value("${gateway.api-keys}") Set<String> issued, ClientAddresses addresses) {
    return GatewayKeys.issuedKey("X-Api-Key", issued::contains, addresses);
  }

  /** Starts the gateway in front of {@code backend} with {@code properties} added. */
  static ConfigurableApplicationContext start(URI backend, Map<String, Object> properties) {
    return new SpringApplicationBuilder(PlansGateway.class)
        .properties("spring.config.name=gateway-plans", "backend.uri=" + backend)
        .properties(properties)
        .run();
  }
}
