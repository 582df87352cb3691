package io.slidingwindow.boot4;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.ReactiveClientKeys;
import io.slidingwindow.spring.ReactiveKeyResolver;
import io.slidingwindow.testkit.http.AttackTable;
import io.slidingwindow.testkit.http.WayIn;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The attack table against Spring Boot 4 applications whose limits live in a real redis-server
 * reached through {@code spring.data.redis.*}: the filter's rules on Spring MVC, and
 * {@code @RateLimit} on WebFlux (Reactor Netty, under BlockHound).
 */
class Boot4AttackTableIT {

  @TestFactory
  Stream<DynamicNode> attackTable() {
    return AttackTable.against(
        WayIn.named("filter rules on Spring MVC, Boot 4, Redis", () -> start(Mvc.class, true)),
        WayIn.named("@RateLimit on WebFlux, Boot 4, Redis", () -> start(WebFlux.class, false)));
  }

  private static WayIn start(Class<?> app, boolean servlet) {
    RedisServerProcess redis = RedisServerProcess.start();
    Map<String, Object> properties = new HashMap<>();
    properties.put("spring.main.web-application-type", servlet ? "servlet" : "reactive");
    properties.put("slidingwindow.http.trusted-proxies", AttackTable.TRUSTED_PROXY);
    if (servlet) {
      String[][] rules = {
        {"limited", AttackTable.LIMITED, "bean:issuedOrAddress"},
        {"raw", AttackTable.RAW, "header:" + AttackTable.API_KEY},
        {"faulty", AttackTable.FAULTY, "bean:faultyKey"},
      };
      for (String[] rule : rules) {
        String prefix = "slidingwindow.http.rules." + rule[0];
        properties.put(prefix + ".paths", rule[1] + "/**");
        properties.put(prefix + ".key", rule[2]);
        properties.put(prefix + ".limits[0].permits", AttackTable.PERMITS);
        properties.put(prefix + ".limits[0].window", "1h");
      }
    }
    ConfigurableApplicationContext context;
    try {
      context = Apps.startWithoutGateway(app, Apps.withRedis(redis, properties));
    } catch (RuntimeException e) {
      redis.close();
      throw e;
    }
    return WayIn.of(
        Apps.uri(context).getPort(),
        () -> {
          context.close();
          redis.close();
        });
  }

  /** The table's faulty key source, as an application key. */
  static RequestKey faulty(UnaryOperator<String> headers) {
    String text = AttackTable.faultyKey(headers);
    return text == null ? null : RequestKey.custom(text);
  }

  @RestController
  static class Handlers {
    @GetMapping({"/limited/{id}", "/raw/{id}", "/faulty/{id}"})
    String handle() {
      return AttackTable.MARKER;
    }
  }

  @RestController
  static class AnnotatedHandlers {
    @GetMapping("/limited/{id}")
    @RateLimit(limits = AttackTable.LIMIT, key = "bean:issuedOrAddress", name = "limited")
    String limited() {
      return AttackTable.MARKER;
    }

    @GetMapping("/raw/{id}")
    @RateLimit(limits = AttackTable.LIMIT, key = "header:" + AttackTable.API_KEY, name = "raw")
    String raw() {
      return AttackTable.MARKER;
    }

    @GetMapping("/faulty/{id}")
    @RateLimit(limits = AttackTable.LIMIT, key = "bean:faultyKey", name = "faulty")
    String faulty() {
      return AttackTable.MARKER;
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Handlers.class)
  static class Mvc {
    @Bean
    KeyResolver issuedOrAddress(ClientIpResolver clientIp) {
      return KeyResolver.typed(
          request ->
              AttackTable.ISSUED_KEY.equals(request.getHeader(AttackTable.API_KEY))
                  ? RequestKey.custom(AttackTable.ISSUED_KEY)
                  : clientIp.key(request));
    }

    @Bean
    KeyResolver faultyKey() {
      return KeyResolver.typed(request -> faulty(request::getHeader));
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(AnnotatedHandlers.class)
  static class WebFlux {
    @Bean
    ReactiveKeyResolver issuedOrAddress(ClientAddresses addresses) {
      return (exchange, principal) ->
          AttackTable.ISSUED_KEY.equals(
                  exchange.getRequest().getHeaders().getFirst(AttackTable.API_KEY))
              ? RequestKey.custom(AttackTable.ISSUED_KEY)
              : ReactiveClientKeys.of(addresses, exchange.getRequest());
    }

    @Bean
    ReactiveKeyResolver faultyKey() {
      return (exchange, principal) -> faulty(exchange.getRequest().getHeaders()::getFirst);
    }
  }
}
