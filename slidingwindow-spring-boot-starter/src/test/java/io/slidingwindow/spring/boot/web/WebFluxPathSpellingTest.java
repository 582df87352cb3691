package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.spring.boot.web.PathSpellingHttpTest.Counters;
import io.slidingwindow.spring.boot.web.PathSpellingHttpTest.Variant;
import io.slidingwindow.testkit.http.RawHttp;
import io.slidingwindow.webflux.ReactiveRateLimitFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.web.reactive.context.ReactiveWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * The spellings of {@link PathSpellingHttpTest}, sent byte for byte to the same handlers and rules
 * in a reactive application on Reactor Netty, which does not normalize a path as a servlet
 * container does: every spelling is either refused or counted by the rule of each handler it
 * reaches. With the firewall on (the default), only canonical spellings reach a handler.
 */
class WebFluxPathSpellingTest {

  /** Reactor Netty, although Tomcat and Jetty are on the test class path too. */
  static class Netty {
    @Bean
    NettyReactiveWebServerFactory nettyReactiveWebServerFactory() {
      return new NettyReactiveWebServerFactory();
    }
  }

  record Fixture(
      ConfigurableApplicationContext context, int port, Counters counters, List<String> table) {}

  private static final Map<String, Fixture> FIXTURES = new TreeMap<>();

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (boolean firewall : new boolean[] {true, false}) {
      for (Variant variant : PathSpellingHttpTest.VARIANTS) {
        cases.add(Arguments.of(firewall, variant));
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "firewall={0}: {1}")
  @MethodSource("cases")
  void request_spelledAnyWay_isRefusedOrCountedByTheRuleOfTheHandlerItReaches(
      boolean firewall, Variant variant) {
    Fixture fixture = FIXTURES.computeIfAbsent("firewall=" + firewall, k -> start(firewall));
    Map<String, Integer> servedBefore = fixture.counters().snapshot(fixture.counters().served);
    Map<String, Integer> countedBefore = fixture.counters().snapshot(fixture.counters().counted);

    RawHttp.Response response =
        RawHttp.get(
            fixture.port(), variant.target().replace("{port}", Integer.toString(fixture.port())));

    Map<String, Integer> served = fixture.counters().snapshot(fixture.counters().served);
    Map<String, Integer> counted = fixture.counters().snapshot(fixture.counters().counted);
    List<String> reached = new ArrayList<>();
    List<String> charged = new ArrayList<>();
    for (String rule : served.keySet()) {
      if (served.get(rule) > servedBefore.get(rule)) {
        reached.add(rule);
      }
      if (counted.get(rule) > countedBefore.get(rule)) {
        charged.add(rule);
      }
    }
    fixture
        .table()
        .add(
            String.format(
                "%-42s %3d reached %-10s counted %s",
                variant.target(), response.status(), reached, charged));
    assertThat(charged)
        .as(
            "firewall=%s %s: status %d; every handler reached is counted by its rule",
            firewall, variant, response.status())
        .containsAll(reached);
    if (variant.canonical()) {
      assertThat(response.status())
          .as("%s: the firewall lets it through", variant)
          .isNotEqualTo(400);
      if (!variant.target().endsWith("/")) { // Spring 6 does not match a trailing slash
        assertThat(reached).as("%s reaches a handler", variant).hasSize(1);
      }
    } else if (firewall) {
      assertThat(reached).as("%s: the firewall stops it before any handler", variant).isEmpty();
      assertThat(charged).as("%s: refused before any rule counts it", variant).isEmpty();
      assertThat(response.status()).as("%s: refused", variant).isBetween(400, 499);
    }
    if (response.status() == 400 && response.isProblemJson()) {
      assertThat(reached).isEmpty();
      assertThat(response.body()).contains("\"status\":400").doesNotContain("v1", "product");
    }
  }

  @AfterAll
  static void stopApplications() {
    try {
      for (Map.Entry<String, Fixture> entry : FIXTURES.entrySet()) {
        System.out.println("== Reactor Netty " + entry.getKey());
        entry.getValue().table().forEach(System.out::println);
      }
      Fixture off = FIXTURES.get("firewall=false");
      if (off != null) {
        long reached = off.table().stream().filter(line -> !line.contains("reached []")).count();
        assertThat(reached)
            .as("with the firewall off, non-canonical spellings reach a handler too")
            .isGreaterThan(
                PathSpellingHttpTest.VARIANTS.stream().filter(Variant::canonical).count());
      }
    } finally {
      FIXTURES.values().forEach(fixture -> fixture.context().close());
      FIXTURES.clear();
    }
  }

  private static Fixture start(boolean firewall) {
    FIXTURES.values().stream()
        .filter(fixture -> fixture.context().isActive())
        .forEach(fixture -> fixture.context().close());
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(PathSpellingHttpTest.App.class, Netty.class)
            .web(WebApplicationType.REACTIVE)
            .properties(
                "server.address=127.0.0.1",
                "server.port=0",
                "spring.main.banner-mode=off",
                "slidingwindow.http.path-firewall.enabled=" + firewall,
                "slidingwindow.http.rules.product.paths=/v1/product/**",
                "slidingwindow.http.rules.product.limits[0].permits=1000000",
                "slidingwindow.http.rules.product.limits[0].window=1m",
                "slidingwindow.http.rules.admin.paths=/v1/admin",
                "slidingwindow.http.rules.admin.limits[0].permits=1000000",
                "slidingwindow.http.rules.admin.limits[0].window=1m")
            .run();
    int port = ((ReactiveWebServerApplicationContext) context).getWebServer().getPort();
    assertThat(context.getBeansOfType(ReactiveRateLimitFilter.class)).hasSize(1);
    return new Fixture(context, port, context.getBean(Counters.class), new ArrayList<>());
  }
}
