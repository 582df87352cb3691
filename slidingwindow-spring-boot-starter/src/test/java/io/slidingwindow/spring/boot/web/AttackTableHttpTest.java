package io.slidingwindow.spring.boot.web;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.testkit.http.AttackTable;
import io.slidingwindow.testkit.http.WayIn;
import io.slidingwindow.webflux.ReactiveClientKeys;
import io.slidingwindow.webflux.ReactiveKeyResolver;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The attack table against the starter's four ways in: the filter's rules and {@code @RateLimit},
 * each on Spring MVC (Tomcat) and on WebFlux (Reactor Netty, under BlockHound), every key from
 * {@code application} properties or a key bean as an application would write it.
 */
class AttackTableHttpTest {

  @TestFactory
  Stream<DynamicNode> attackTable() {
    return AttackTable.against(
        WayIn.named("filter rules on Spring MVC", () -> start(Mvc.class, "servlet", true)),
        WayIn.named("@RateLimit on Spring MVC", () -> start(MvcAnnotated.class, "servlet", false)),
        WayIn.named("filter rules on WebFlux", () -> start(WebFlux.class, "reactive", true)),
        WayIn.named(
            "@RateLimit on WebFlux", () -> start(WebFluxAnnotated.class, "reactive", false)));
  }

  /** The table's rules as properties: the limited, raw and faulty paths. */
  private static List<String> rules() {
    List<String> rules = new ArrayList<>();
    String[][] table = {
      {"limited", AttackTable.LIMITED, "bean:issuedOrAddress"},
      {"raw", AttackTable.RAW, "header:" + AttackTable.API_KEY},
      {"faulty", AttackTable.FAULTY, "bean:faultyKey"},
    };
    for (String[] rule : table) {
      String prefix = "--slidingwindow.http.rules." + rule[0];
      rules.add(prefix + ".paths=" + rule[1] + "/**");
      rules.add(prefix + ".key=" + rule[2]);
      rules.add(prefix + ".limits[0].permits=" + AttackTable.PERMITS);
      rules.add(prefix + ".limits[0].window=1h");
    }
    return rules;
  }

  static WayIn start(Class<?> app, String type, boolean withRules) {
    List<String> args = new ArrayList<>();
    args.add("--server.port=0");
    args.add("--server.address=127.0.0.1");
    args.add("--spring.main.web-application-type=" + type);
    args.add("--spring.main.banner-mode=off");
    args.add("--slidingwindow.http.trusted-proxies=" + AttackTable.TRUSTED_PROXY);
    if (withRules) {
      args.addAll(rules());
    }
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(app).run(args.toArray(new String[0]));
    return WayIn.of(
        ((WebServerApplicationContext) context).getWebServer().getPort(), context::close);
  }

  /** The table's faulty key source, as an application key. */
  static RequestKey faulty(UnaryOperator<String> headers) {
    String text = AttackTable.faultyKey(headers);
    return text == null ? null : RequestKey.custom(text);
  }

  /** The three handlers, without limits of their own. */
  @RestController
  static class Handlers {
    @GetMapping({"/limited/{id}", "/raw/{id}", "/faulty/{id}"})
    String handle() {
      return AttackTable.MARKER;
    }
  }

  /** The three handlers, each limited by {@code @RateLimit}. */
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

  /** The key beans of a servlet application. */
  @Configuration(proxyBeanMethods = false)
  static class ServletKeyBeans {
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

  /** The key beans of a reactive application, on Reactor Netty. */
  @Configuration(proxyBeanMethods = false)
  static class ReactiveKeyBeans {
    @Bean
    NettyReactiveWebServerFactory nettyReactiveWebServerFactory() {
      return new NettyReactiveWebServerFactory();
    }

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

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import({Handlers.class, ServletKeyBeans.class})
  static class Mvc {}

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import({AnnotatedHandlers.class, ServletKeyBeans.class})
  static class MvcAnnotated {}

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import({Handlers.class, ReactiveKeyBeans.class})
  static class WebFlux {}

  @Configuration(proxyBeanMethods = false)
  @EnableAutoConfiguration
  @Import({AnnotatedHandlers.class, ReactiveKeyBeans.class})
  static class WebFluxAnnotated {}
}
