package io.slidingwindow.gateway;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.spring.ReactiveClientKeys;
import io.slidingwindow.testkit.http.AttackTable;
import io.slidingwindow.testkit.http.LoopbackBackend;
import io.slidingwindow.testkit.http.WayIn;
import java.util.Map;
import java.util.Set;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Primary;
import reactor.core.publisher.Mono;

/**
 * A gateway with the attack table's contract ({@code attack-gateway.yml}) in front of a backend
 * that answers the table's marker: the issued key resolver of {@link GatewayKeys}, a resolver that
 * hands the header on as sent (so that long keys reach the limiter), and a faulty one.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class AttackGateway {

  /** Primary: with several key resolvers, the filter's default must be named. */
  @Bean
  @Primary
  KeyResolver issuedKeyResolver(ClientAddresses addresses) {
    return GatewayKeys.issuedKey(
        AttackTable.API_KEY, Set.of(AttackTable.ISSUED_KEY)::contains, addresses);
  }

  /** The header as sent, else the client address: what a naive application writes. */
  @Bean
  KeyResolver rawKeyResolver(ClientAddresses addresses) {
    return exchange -> {
      String key = exchange.getRequest().getHeaders().getFirst(AttackTable.API_KEY);
      return Mono.just(
          key != null ? key : ReactiveClientKeys.of(addresses, exchange.getRequest()).value());
    };
  }

  @Bean
  KeyResolver faultyKeyResolver(ClientAddresses addresses) {
    return GatewayKeys.typed(
        exchange -> {
          String text = AttackTable.faultyKey(exchange.getRequest().getHeaders()::getFirst);
          return text == null ? null : RequestKey.custom(text);
        },
        addresses);
  }

  /** Starts the gateway and its backend, with {@code properties} added. */
  static WayIn start(Map<String, Object> properties) {
    LoopbackBackend backend = LoopbackBackend.start(AttackTable.MARKER);
    ConfigurableApplicationContext gateway =
        new SpringApplicationBuilder(AttackGateway.class)
            .properties("spring.config.name=attack-gateway", "backend.uri=" + backend.uri())
            .properties(properties)
            .run();
    return WayIn.of(
        ((WebServerApplicationContext) gateway).getWebServer().getPort(),
        () -> {
          gateway.close();
          backend.close();
        });
  }
}
