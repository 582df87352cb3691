package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.testkit.http.RawHttp;
import io.undertow.UndertowOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.eclipse.jetty.ee10.webapp.WebAppContext;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.embedded.jetty.JettyServletWebServerFactory;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.boot.web.embedded.undertow.UndertowServletWebServerFactory;
import org.springframework.boot.web.servlet.context.ServletWebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A rule cannot be stepped around by spelling a path differently, in a Spring Boot application on a
 * real Tomcat, a real Jetty and a real Undertow (each as configured by default and lenient), with
 * rules from properties and a {@code @RateLimit} handler: every spelling, sent byte for byte over a
 * socket, is either refused or counted by the rule of each Spring MVC handler it reaches. With the
 * firewall on (the default), only canonical spellings reach a handler; with it off, rules still
 * count every spelling that Spring MVC dispatches to a handler under their paths.
 */
class PathSpellingHttpTest {

  /** One spelling: the request-target ({@code {port}} is replaced) and whether it is canonical. */
  record Variant(String target, boolean canonical) {
    @Override
    public String toString() {
      return target + (canonical ? " (canonical)" : "");
    }
  }

  static final List<Variant> VARIANTS =
      Stream.of(
              "+/v1/product/1",
              "+/v1/product/1/details",
              "+/v1/product/1/",
              "+/v1/product/1?x=/..;%2e",
              "+/v1/%70roduct/1",
              "+/%76%31/product/1",
              "+http://127.0.0.1:{port}/v1/product/1",
              "+/v1/admin",
              "+/v1/%61dmin",
              "+/v1/annotated/1",
              // The four.
              "/v1/product/..;",
              "/v1/product/..;jsessionid=x",
              "/v1/product/%2e%2e",
              "/v1/product/%2E.",
              // Dot segments.
              "/v1/product/.%2E",
              "/v1/product/%2e",
              "/v1/product/..",
              "/v1/product/.",
              "/v1/product/./1",
              "/v1/product/.;x=y",
              "/v1/product/%2e%2e;",
              "/v1/product/..;/details",
              "/v1/product/%2e%2e/details",
              "/v1/product/..;x=y/details",
              "/v1/x/../product/1",
              "/v1/x/%2e%2e/product/1",
              "/v1/x/..;/product/1",
              "/v1/product/../../v1/product/1",
              "/v1/product/1/..",
              "/v1/product/..?x=1",
              "/v1/product/..;/admin",
              "/v1/x/../admin",
              "/v1/annotated/..;",
              "/v1/annotated/%2e%2e",
              "/v1/annotated/.",
              // Path parameters.
              "/v1/product/1;x=y",
              "/v1/product/1;jsessionid=abc",
              "/v1/product;x=y/1",
              "/v1;x/product/1",
              "/;x/v1/product/1",
              "/v1/admin;x=1",
              "/v1/annotated/1;x=y",
              // Encoded path parameters: data to Spring MVC, a parameter to a reader that decodes
              // first.
              "/v1/admin%3Bx=1",
              "/v1/product/1%3Bx=y",
              "/v1%3bx/product/1",
              "/v1/annotated/1%3Bx=y",
              // Repeated slashes.
              "//v1/product/1",
              "/v1//product/1",
              "/v1/product//1",
              "/v1//admin",
              // Encoded and raw separators.
              "/v1%2Fproduct%2F1",
              "/v1/product%2f1",
              "/v1/product/%2e%2e%2fdetails",
              "/v1%5Cproduct%5C1",
              "/v1/product/%2e%2e%5c",
              "/v1\\product\\1",
              "/v1/product\\..\\",
              "/v1\\admin",
              // Encoded percent, bad and overlong encodings, raw non-ASCII.
              "/v1/product/%252e%252e",
              "/v1/product/%25",
              "/v1/product/%c0%ae%c0%ae",
              "/v1/product/%c0%ae",
              "/v1/product/%e0%80%ae",
              "/v1/product/%zz",
              "/v1/product/%",
              "/v1/product/%ff",
              "/v1/product/%00",
              "/v1/product/caf\u00e9",
              // Absolute form.
              "http://127.0.0.1:{port}/v1/product/..",
              "http://127.0.0.1:{port}/v1/product/..;",
              "http://127.0.0.1:{port}/v1/product/%2e%2e")
          .map(t -> t.startsWith("+") ? new Variant(t.substring(1), true) : new Variant(t, false))
          .toList();

  /** The servers: Tomcat and Jetty as Spring Boot sets them up, and each made lenient. */
  enum Server {
    TOMCAT,
    TOMCAT_LENIENT,
    TOMCAT_LENIENT_ANT_MATCHER,
    JETTY,
    JETTY_LENIENT,
    UNDERTOW,
    UNDERTOW_LENIENT
  }

  /** What reached which handler, and what each rule counted. */
  static final class Counters {
    final Map<String, AtomicInteger> served = new ConcurrentHashMap<>();
    final Map<String, AtomicInteger> counted = new ConcurrentHashMap<>();

    void serve(String rule) {
      served.computeIfAbsent(rule, r -> new AtomicInteger()).incrementAndGet();
    }

    Map<String, Integer> snapshot(Map<String, AtomicInteger> map) {
      Map<String, Integer> copy = new TreeMap<>();
      for (String rule : List.of("product", "admin", "annotated")) {
        copy.put(rule, map.computeIfAbsent(rule, r -> new AtomicInteger()).get());
      }
      return copy;
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(App.Api.class)
  static class App {
    @Bean
    Counters counters() {
      return new Counters();
    }

    @Bean
    RateLimitListener countingListener(Counters counters) {
      return new RateLimitListener() {
        @Override
        public void onAllowed(HttpRule rule, Decision decision) {
          counters.counted.computeIfAbsent(rule.name(), r -> new AtomicInteger()).incrementAndGet();
        }
      };
    }

    /** Handlers; each tells which rule must count the requests it serves. */
    @RestController
    static class Api {
      private final Counters counters;

      Api(Counters counters) {
        this.counters = counters;
      }

      @GetMapping({"/v1/product/{id}", "/v1/product/{id}/details"})
      String product(@PathVariable("id") String id) {
        counters.serve("product");
        return "product " + id;
      }

      @GetMapping("/v1/admin")
      String admin() {
        counters.serve("admin");
        return "admin";
      }

      @GetMapping("/v1/annotated/{id}")
      @RateLimit(name = "annotated", limits = "1000000/1m")
      String annotated(@PathVariable("id") String id) {
        counters.serve("annotated");
        return "annotated " + id;
      }
    }
  }

  static class TomcatLenient {
    @Bean
    TomcatServletWebServerFactory tomcat() {
      TomcatServletWebServerFactory factory = new TomcatServletWebServerFactory();
      factory.addConnectorCustomizers(
          connector -> {
            connector.setAllowBackslash(true);
            connector.setEncodedSolidusHandling("decode");
            connector.setProperty("relaxedPathChars", "\\");
          });
      return factory;
    }
  }

  static class Jetty {
    @Bean
    JettyServletWebServerFactory jetty() {
      return new JettyServletWebServerFactory();
    }
  }

  static class JettyLenient {
    @Bean
    JettyServletWebServerFactory jetty() {
      JettyServletWebServerFactory factory =
          new JettyServletWebServerFactory() {
            @Override
            protected void postProcessWebAppContext(WebAppContext context) {
              context.getServletHandler().setDecodeAmbiguousURIs(true);
            }
          };
      factory.addServerCustomizers(
          server -> {
            for (Connector connector : server.getConnectors()) {
              connector
                  .getConnectionFactory(HttpConnectionFactory.class)
                  .getHttpConfiguration()
                  .setUriCompliance(UriCompliance.UNSAFE);
            }
          });
      return factory;
    }
  }

  static class Undertow {
    @Bean
    UndertowServletWebServerFactory undertow() {
      return new UndertowServletWebServerFactory();
    }
  }

  static class UndertowLenient {
    @Bean
    UndertowServletWebServerFactory undertow() {
      UndertowServletWebServerFactory factory = new UndertowServletWebServerFactory();
      factory.addBuilderCustomizers(
          builder ->
              builder
                  .setServerOption(UndertowOptions.ALLOW_ENCODED_SLASH, true)
                  .setServerOption(UndertowOptions.ALLOW_UNESCAPED_CHARACTERS_IN_URL, true));
      return factory;
    }
  }

  /** A running application and the table of what each spelling did. */
  record Fixture(
      ConfigurableApplicationContext context, int port, Counters counters, List<String> table) {}

  private static final Map<String, Fixture> FIXTURES = new TreeMap<>();

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Server server : Server.values()) {
      for (boolean firewall : new boolean[] {true, false}) {
        for (Variant variant : VARIANTS) {
          cases.add(Arguments.of(server, firewall, variant));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} firewall={1}: {2}")
  @MethodSource("cases")
  void request_spelledAnyWay_isRefusedOrCountedByTheRuleOfTheHandlerItReaches(
      Server server, boolean firewall, Variant variant) {
    Fixture fixture =
        FIXTURES.computeIfAbsent(server + " firewall=" + firewall, k -> start(server, firewall));
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
            "%s firewall=%s %s: status %d; every handler reached is counted by its rule",
            server, firewall, variant, response.status())
        .containsAll(reached);
    if (variant.canonical()) {
      assertThat(response.status())
          .as("%s: the firewall lets it through", variant)
          .isNotEqualTo(400);
      if (!variant.target().endsWith("/")) { // Spring MVC 6 does not match a trailing slash
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
        System.out.println("== " + entry.getKey());
        entry.getValue().table().forEach(System.out::println);
      }
      // Off, on the lenient servers, most spellings reach a handler: the matching, not the
      // container, is what counted them.
      for (Server server :
          List.of(Server.TOMCAT_LENIENT, Server.JETTY_LENIENT, Server.UNDERTOW_LENIENT)) {
        Fixture off = FIXTURES.get(server + " firewall=false");
        if (off != null) {
          long reached = off.table().stream().filter(line -> !line.contains("reached []")).count();
          assertThat(reached)
              .as("%s with the firewall off lets many spellings reach a handler", server)
              .isGreaterThan(VARIANTS.size() / 2);
        }
      }
    } finally {
      FIXTURES.values().forEach(fixture -> fixture.context().close());
      FIXTURES.clear();
    }
  }

  private static Fixture start(Server server, boolean firewall) {
    List<Class<?>> sources = new ArrayList<>(List.of(App.class));
    switch (server) {
      case TOMCAT -> {}
      case TOMCAT_LENIENT, TOMCAT_LENIENT_ANT_MATCHER -> sources.add(TomcatLenient.class);
      case JETTY -> sources.add(Jetty.class);
      case JETTY_LENIENT -> sources.add(JettyLenient.class);
      case UNDERTOW -> sources.add(Undertow.class);
      case UNDERTOW_LENIENT -> sources.add(UndertowLenient.class);
    }
    List<String> properties =
        new ArrayList<>(
            List.of(
                "server.address=127.0.0.1",
                "server.port=0",
                "spring.main.banner-mode=off",
                "slidingwindow.http.path-firewall.enabled=" + firewall,
                "slidingwindow.http.rules.product.paths=/v1/product/**",
                "slidingwindow.http.rules.product.limits[0].permits=1000000",
                "slidingwindow.http.rules.product.limits[0].window=1m",
                "slidingwindow.http.rules.admin.paths=/v1/admin",
                "slidingwindow.http.rules.admin.limits[0].permits=1000000",
                "slidingwindow.http.rules.admin.limits[0].window=1m"));
    if (server == Server.TOMCAT_LENIENT_ANT_MATCHER) {
      properties.add("spring.mvc.pathmatch.matching-strategy=ant_path_matcher");
    }
    // One application at a time: the previous one has served all its cases.
    FIXTURES.values().stream()
        .filter(fixture -> fixture.context().isActive())
        .forEach(fixture -> fixture.context().close());
    ConfigurableApplicationContext context =
        new SpringApplicationBuilder(sources.toArray(new Class<?>[0]))
            .properties(properties.toArray(new String[0]))
            .run();
    int port = ((ServletWebServerApplicationContext) context).getWebServer().getPort();
    assertThat(
            context
                .getBeansOfType(
                    org.springframework.boot.web.servlet.server.ServletWebServerFactory.class)
                .values())
        .singleElement()
        .isInstanceOf(
            server.name().startsWith("JETTY")
                ? JettyServletWebServerFactory.class
                : server.name().startsWith("UNDERTOW")
                    ? UndertowServletWebServerFactory.class
                    : TomcatServletWebServerFactory.class);
    return new Fixture(context, port, context.getBean(Counters.class), new ArrayList<>());
  }
}
