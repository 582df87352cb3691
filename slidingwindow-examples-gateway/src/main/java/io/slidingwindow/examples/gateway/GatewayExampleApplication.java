package io.slidingwindow.examples.gateway;

import java.net.InetSocketAddress;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * A gateway in front of one backend ({@code backend.uri}, {@code http://127.0.0.1:8081} by default)
 * whose {@code /api/**} route is rate limited per API key by the sliding-window limiter: see {@code
 * application.yml}. Run it with {@code ./mvnw -pl slidingwindow-examples-gateway -am
 * spring-boot:run}; with {@code slidingwindow.redis.uri} set, every instance shares the windows.
 */
@SpringBootApplication
public class GatewayExampleApplication {

  /**
   * The client's {@code X-Api-Key} header, or else its address: the key each limit counts by.
   * Referenced by the route as {@code #{@apiKeyResolver}}.
   */
  @Bean
  KeyResolver apiKeyResolver() {
    return exchange -> {
      String apiKey = exchange.getRequest().getHeaders().getFirst("X-Api-Key");
      if (apiKey != null && !apiKey.isBlank()) {
        return Mono.just("key:" + apiKey);
      }
      InetSocketAddress remote = exchange.getRequest().getRemoteAddress();
      return Mono.justOrEmpty(
          remote == null || remote.getAddress() == null
              ? null
              : "ip:" + remote.getAddress().getHostAddress());
    };
  }

  public static void main(String[] args) {
    SpringApplication.run(GatewayExampleApplication.class, args);
  }
}
