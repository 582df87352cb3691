package io.slidingwindow.examples.gateway;

import io.slidingwindow.gateway.GatewayKeys;
import io.slidingwindow.http.ClientAddresses;
import java.util.Set;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.annotation.Bean;

/**
 * A gateway in front of one backend ({@code backend.uri}, {@code http://127.0.0.1:8081} by default)
 * whose {@code /api/**} route is rate limited per API key by the sliding-window limiter: see {@code
 * application.yml}. Run it with {@code ./mvnw -pl slidingwindow-examples-gateway -am
 * spring-boot:run}; with {@code slidingwindow.redis.uri} set, every instance shares the windows.
 */
@SpringBootApplication
public class GatewayExampleApplication {

  /**
   * The key each limit counts by: the client's {@code X-Api-Key} if this gateway issued it ({@code
   * gateway.api-keys}), else the client's address (IPv6 by its /64; {@code X-Forwarded-For} only
   * from {@code slidingwindow.http.trusted-proxies}). A client chooses the header it sends: keying
   * on it as sent would give every made-up value a fresh quota, so keys nobody issued, and requests
   * without one, all count against their address. Referenced by the route as {@code
   * #{@apiKeyResolver}}.
   */
  @Bean
  KeyResolver apiKeyResolver(
      @Value("${gateway.api-keys}") Set<String> issuedKeys, ClientAddresses addresses) {
    Set<String> issued = Set.copyOf(issuedKeys);
    return GatewayKeys.issuedKey("X-Api-Key", issued::contains, addresses);
  }

  public static void main(String[] args) {
    SpringApplication.run(GatewayExampleApplication.class, args);
  }
}
