package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.testkit.http.RawHttp;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A rule cannot be stepped around by spelling a path differently: every spelling of a path under a
 * rule's patterns, sent byte for byte over a socket to a real Tomcat, Jetty and Undertow (each
 * strict by default and lenient), is either answered 400 or counted by the rule whenever it reaches
 * the servlet. With the firewall on, only canonical spellings reach the servlet; with it off, rules
 * still count every spelling that does.
 */
class PathSpellingTest {

  /** One spelling: the request-target ({@code {port}} is replaced), the rule it aims at. */
  record Variant(String target, String rule, boolean canonical) {
    @Override
    public String toString() {
      return target + (canonical ? " (canonical)" : "");
    }
  }

  static final List<Variant> VARIANTS =
      List.of(
          // Canonical controls: reach the servlet and are counted, firewall or not.
          ok("/v1/product/1"),
          ok("/v1/product/1/"),
          ok("/v1/product"),
          ok("/v1/product/1?x=/..;%2e"),
          ok("/v1/%70roduct/1"),
          ok("/%76%31/product/1"),
          ok("http://127.0.0.1:{port}/v1/product/1"),
          // The four, and other dot segments.
          bad("/v1/product/..;"),
          bad("/v1/product/..;jsessionid=x"),
          bad("/v1/product/%2e%2e"),
          bad("/v1/product/%2E."),
          bad("/v1/product/.%2E"),
          bad("/v1/product/%2e"),
          bad("/v1/product/.."),
          bad("/v1/product/../"),
          bad("/v1/product/."),
          bad("/v1/product/./1"),
          bad("/v1/product/.;x=y"),
          bad("/v1/product/..;x=y/"),
          bad("/v1/product/%2e%2e;"),
          bad("/v1/product/%2e%2e/"),
          bad("/v1/x/../product/1"),
          bad("/v1/x/%2e%2e/product/1"),
          bad("/v1/x/..;/product/1"),
          bad("/v1/product/../../v1/product/1"),
          bad("/../v1/product/1"),
          bad("/v1/product/1/.."),
          bad("/v1/product/..?x=1"),
          // Path parameters.
          bad("/v1/product/1;x=y"),
          bad("/v1/product/1;jsessionid=abc"),
          bad("/v1/product;x=y/1"),
          bad("/v1;x/product/1"),
          bad("/;x/v1/product/1"),
          bad("/v1/product;"),
          // Repeated slashes.
          bad("//v1/product/1"),
          bad("/v1//product/1"),
          bad("/v1/product//1"),
          bad("/v1/product/1//"),
          // Encoded and raw separators.
          bad("/v1%2Fproduct%2F1"),
          bad("/v1/product%2f1"),
          bad("/v1%2fproduct/%2e%2e"),
          bad("/v1%5Cproduct%5C1"),
          bad("/v1/product%5c%2e%2e"),
          bad("/v1\\product\\1"),
          bad("/v1/product\\..\\"),
          bad("/v1\\product/.."),
          // Encoded percent, bad and overlong encodings, raw non-ASCII.
          bad("/v1/product/%252e%252e"),
          bad("/v1/product/%25"),
          bad("/v1/product/%c0%ae%c0%ae"),
          bad("/v1/product/%c0%ae"),
          bad("/v1/product/%e0%80%ae"),
          bad("/v1/product/%zz"),
          bad("/v1/product/%"),
          bad("/v1/product/%ff"),
          bad("/v1/product/%00"),
          bad("/v1/product/caf\u00e9"),
          // Absolute form.
          bad("http://127.0.0.1:{port}/v1/product/.."),
          bad("http://127.0.0.1:{port}/v1/product/..;"),
          bad("http://127.0.0.1:{port}/v1/product/%2e%2e"),
          // An exact pattern, and detours into it.
          new Variant("/v1/admin", "admin", true),
          new Variant("/v1/%61dmin", "admin", true),
          new Variant("/v1/admin/", "admin", true),
          new Variant("/v1/admin;x=1", "admin", false),
          new Variant("/v1/%61dmin;", "admin", false),
          new Variant("/v1//admin", "admin", false),
          new Variant("/v1/x/../admin", "admin", false),
          new Variant("/v1/product/..;/admin", "admin", false),
          new Variant("/v1/product/%2e%2e/admin", "admin", false),
          new Variant("/v1/admin/.", "admin", false),
          new Variant("/v1\\admin", "admin", false));

  private static Variant ok(String target) {
    return new Variant(target, "product", true);
  }

  private static Variant bad(String target) {
    return new Variant(target, "product", false);
  }

  enum Container {
    TOMCAT,
    TOMCAT_LENIENT,
    JETTY,
    JETTY_LENIENT,
    UNDERTOW,
    UNDERTOW_LENIENT
  }

  /** A running server, what reached its servlet and what each rule counted. */
  static final class Fixture {
    final AtomicInteger served = new AtomicInteger();
    final Map<String, AtomicInteger> counted = new ConcurrentHashMap<>();
    final List<String> table = new ArrayList<>();
    AutoCloseable server;
    int port;

    int counted(String rule) {
      return counted.computeIfAbsent(rule, r -> new AtomicInteger()).get();
    }
  }

  private static final Map<String, Fixture> FIXTURES = new ConcurrentHashMap<>();

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (Container container : Container.values()) {
      for (boolean firewall : new boolean[] {true, false}) {
        for (Variant variant : VARIANTS) {
          cases.add(Arguments.of(container, firewall, variant));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} firewall={1}: {2}")
  @MethodSource("cases")
  void request_spelledAnyWay_isRefusedOrCountedByItsRule(
      Container container, boolean firewall, Variant variant) throws Exception {
    Fixture fixture =
        FIXTURES.computeIfAbsent(container + "/" + firewall, k -> start(container, firewall));
    int servedBefore = fixture.served.get();
    int countedBefore = fixture.counted(variant.rule());
    int allBefore = fixture.counted("product") + fixture.counted("admin");

    RawHttp.Response response =
        RawHttp.get(
            fixture.port, variant.target().replace("{port}", Integer.toString(fixture.port)));

    boolean reached = fixture.served.get() > servedBefore;
    boolean counted = fixture.counted(variant.rule()) > countedBefore;
    fixture.table.add(
        String.format(
            "%-45s %3d %s%s",
            variant.target(),
            response.status(),
            reached ? "reached " : "",
            counted ? "counted" : ""));
    assertThat(reached && !counted)
        .as(
            "%s firewall=%s %s: status %d, reached the servlet but not counted by '%s'",
            container, firewall, variant, response.status(), variant.rule())
        .isFalse();
    if (variant.canonical()) {
      assertThat(response.status()).as("%s: a canonical path goes through", variant).isEqualTo(200);
      assertThat(counted).isTrue();
    } else if (firewall && !slashDecodedByTheContainer(container, variant)) {
      assertThat(reached).as("%s: the firewall stops it before the servlet", variant).isFalse();
      assertThat(response.status()).as("%s: refused", variant).isBetween(400, 499);
      assertThat(fixture.counted("product") + fixture.counted("admin"))
          .as("%s: refused before any rule counts it", variant)
          .isEqualTo(allBefore);
    }
    if (response.status() == 400 && response.isProblemJson()) {
      assertThat(response.body()).contains("\"status\":400").doesNotContain("v1", "product");
      assertThat(reached || counted)
          .as("%s: our 400 comes before rules and servlet", variant)
          .isFalse();
    }
  }

  @ParameterizedTest(name = "Tomcat at /app, firewall={0}")
  @ValueSource(booleans = {true, false})
  void request_underAContextPath_isRefusedOrCountedByItsRule(boolean firewall) throws Exception {
    Fixture fixture = new Fixture();
    RateLimitEnforcer enforcer =
        RateLimitEnforcer.builder()
            .rule(
                HttpRule.builder("product")
                    .path("/v1/product/**")
                    .limit(Limit.of(1_000_000, Duration.ofMinutes(1)))
                    .build())
            .listener(
                new RateLimitListener() {
                  @Override
                  public void onAllowed(HttpRule rule, Decision decision) {
                    fixture
                        .counted
                        .computeIfAbsent(rule.name(), r -> new AtomicInteger())
                        .incrementAndGet();
                  }
                })
            .pathFirewall(firewall ? PathFirewall.strict() : PathFirewall.off())
            .build();
    HttpServlet servlet =
        new HttpServlet() {
          @Override
          protected void service(HttpServletRequest req, HttpServletResponse resp) {
            fixture.served.incrementAndGet();
          }
        };
    List<String> targets =
        List.of(
            "/app/v1/product/..;",
            "/app/v1/product/%2e%2e",
            "/app;x=1/v1/product/..;",
            "/%61pp/v1/product/..;",
            "/%61pp/v1/product/%2e%2e",
            "/app/v1/x/../product/1",
            "/app//v1/product/..;",
            "/app/../app/v1/product/..;",
            "/app\\v1\\product\\..");
    int reachedCount = 0;
    try (EmbeddedTomcat tomcat =
        new EmbeddedTomcat(
            new RateLimitFilter(enforcer), servlet, true, "/app", Files.createTempDirectory("t"))) {
      RawHttp.Response canonical = RawHttp.get(tomcat.port(), "/app/v1/product/1");
      assertThat(canonical.status()).isEqualTo(200);
      assertThat(fixture.counted("product")).isEqualTo(1);
      for (String target : targets) {
        int served = fixture.served.get();
        int counted = fixture.counted("product");
        RawHttp.Response response = RawHttp.get(tomcat.port(), target);
        boolean reached = fixture.served.get() > served;
        reachedCount += reached ? 1 : 0;
        assertThat(reached && fixture.counted("product") == counted)
            .as(
                "%s firewall=%s: status %d, reached but not counted",
                target, firewall, response.status())
            .isFalse();
        if (firewall) {
          assertThat(reached).as("%s: stopped by the firewall", target).isFalse();
        }
      }
    }
    if (!firewall) {
      assertThat(reachedCount).as("spellings that reach the servlet").isGreaterThan(4);
    }
  }

  /**
   * Undertow told to allow encoded slashes decodes them in the request URI it hands the filter
   * ({@code /v1%2Fproduct%2F1} is {@code /v1/product/1} to everyone), so the firewall never sees
   * them; the rule still counts what the servlet serves, which the test checks for every spelling.
   */
  private static boolean slashDecodedByTheContainer(Container container, Variant variant) {
    return container == Container.UNDERTOW_LENIENT
        && variant.target().toLowerCase(java.util.Locale.ROOT).contains("%2f");
  }

  @AfterAll
  static void stopServers() throws Exception {
    for (Map.Entry<String, Fixture> entry : new java.util.TreeMap<>(FIXTURES).entrySet()) {
      System.out.println("== " + entry.getKey());
      entry.getValue().table.forEach(System.out::println);
      entry.getValue().server.close();
    }
    // Firewall off, on the lenient servers: the spellings that reach the servlet are the ones
    // the matching must count (each was asserted counted above); there must be many of them.
    for (Container container : List.of(Container.TOMCAT_LENIENT, Container.JETTY_LENIENT)) {
      Fixture off = FIXTURES.get(container + "/false");
      if (off != null) {
        long reached = off.table.stream().filter(line -> line.contains("reached")).count();
        assertThat(reached)
            .as("%s with the firewall off lets most spellings through", container)
            .isGreaterThan(VARIANTS.size() / 2);
      }
    }
    FIXTURES.clear();
  }

  private static Fixture start(Container container, boolean firewall) {
    Fixture fixture = new Fixture();
    RateLimitListener listener =
        new RateLimitListener() {
          @Override
          public void onAllowed(HttpRule rule, Decision decision) {
            fixture
                .counted
                .computeIfAbsent(rule.name(), r -> new AtomicInteger())
                .incrementAndGet();
          }
        };
    RateLimitEnforcer enforcer =
        RateLimitEnforcer.builder()
            .rule(
                HttpRule.builder("product")
                    .path("/v1/product/**")
                    .limit(Limit.of(1_000_000, Duration.ofMinutes(1)))
                    .build())
            .rule(
                HttpRule.builder("admin")
                    .path("/v1/admin")
                    .limit(Limit.of(1_000_000, Duration.ofMinutes(1)))
                    .build())
            .listener(listener)
            .pathFirewall(firewall ? PathFirewall.strict() : PathFirewall.off())
            .build();
    Filter filter = new RateLimitFilter(enforcer);
    HttpServlet servlet =
        new HttpServlet() {
          @Override
          protected void service(HttpServletRequest req, HttpServletResponse resp)
              throws IOException {
            fixture.served.incrementAndGet();
            resp.setContentType("text/plain");
            resp.getWriter().write("ok");
          }
        };
    try {
      switch (container) {
        case TOMCAT, TOMCAT_LENIENT -> {
          EmbeddedTomcat tomcat =
              new EmbeddedTomcat(
                  filter,
                  servlet,
                  container == Container.TOMCAT_LENIENT,
                  "",
                  Files.createTempDirectory("tomcat"));
          fixture.server = tomcat;
          fixture.port = tomcat.port();
        }
        case UNDERTOW, UNDERTOW_LENIENT -> {
          EmbeddedUndertow undertow =
              new EmbeddedUndertow(filter, servlet, container == Container.UNDERTOW_LENIENT);
          fixture.server = undertow;
          fixture.port = undertow.port();
        }
        case JETTY, JETTY_LENIENT -> {
          EmbeddedJetty jetty =
              new EmbeddedJetty(filter, servlet, container == Container.JETTY_LENIENT);
          fixture.server = jetty;
          fixture.port = jetty.port();
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("cannot start " + container, e);
    }
    return fixture;
  }
}
