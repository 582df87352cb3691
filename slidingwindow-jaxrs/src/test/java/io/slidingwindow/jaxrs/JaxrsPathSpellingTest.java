package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.testkit.http.RawHttp;
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

/**
 * A rule cannot be stepped around by spelling a path differently: every spelling, sent byte for
 * byte over a socket to Jersey on Grizzly and RESTEasy on Undertow (the application at {@code
 * /app}), is either refused or counted by its rule whenever it reaches a resource method. With the
 * firewall on, only canonical spellings reach a resource (the others end 400 from the firewall,
 * 404, or 400 from the check in front of Jersey's Grizzly container, which would answer 500 to a
 * backslash before any filter runs); with it off, rules still count every spelling that does.
 */
class JaxrsPathSpellingTest {

  /** One spelling: the request-target below {@code /app}, the rule it aims at. */
  record Variant(String target, String rule, boolean canonical) {
    @Override
    public String toString() {
      return target + (canonical ? " (canonical)" : "");
    }
  }

  static final List<Variant> VARIANTS =
      List.of(
          ok("/v1/product/1"),
          ok("/v1/product/1/"),
          ok("/v1/product"),
          ok("/v1/product/1?x=/..;%2e"),
          // JAX-RS runtimes match resources on the path as sent: these end 404, never uncounted.
          bad("/v1/%70roduct/1"),
          bad("/%76%31/product/1"),
          bad("/v1/product/..;"),
          bad("/v1/product/%2e%2e"),
          bad("/v1/product/%2E."),
          bad("/v1/product/.."),
          bad("/v1/product/./1"),
          bad("/v1/x/../product/1"),
          bad("/v1/x/%2e%2e/product/1"),
          bad("/v1/x/..;/product/1"),
          bad("/../app/v1/product/1"),
          bad("/v1/product/1;x=y"),
          bad("/v1/product;x=y/1"),
          bad("/v1;x/product/1"),
          bad("//v1/product/1"),
          bad("/v1//product/1"),
          bad("/v1%2Fproduct%2F1"),
          bad("/v1/product%2f1"),
          bad("/v1%5Cproduct%5C1"),
          bad("/v1\\product\\1"),
          bad("/v1/product/%252e%252e"),
          bad("/v1/product/%c0%ae%c0%ae"),
          bad("/v1/product/%zz"),
          bad("/v1/product/%00"),
          new Variant("/v1/admin", "admin", true),
          new Variant("/v1/%61dmin", "admin", false),
          new Variant("/v1/admin;x=1", "admin", false),
          new Variant("/v1//admin", "admin", false),
          new Variant("/v1/x/../admin", "admin", false),
          new Variant("/v1/product/..;/admin", "admin", false),
          new Variant("/v1/product/%2e%2e/admin", "admin", false),
          new Variant("/v1/admin/.", "admin", false),
          new Variant("/v1\\admin", "admin", false),
          new Variant("/v1/ADMIN", "admin", false));

  private static Variant ok(String target) {
    return new Variant(target, "product", true);
  }

  private static Variant bad(String target) {
    return new Variant(target, "product", false);
  }

  /** A running server, what reached its resources and what each rule counted. */
  static final class Fixture {
    final Api api = new Api();
    final Map<String, AtomicInteger> counted = new ConcurrentHashMap<>();
    JaxrsServers.Running server;

    int counted(String rule) {
      return counted.computeIfAbsent(rule, r -> new AtomicInteger()).get();
    }
  }

  private static final Map<String, Fixture> FIXTURES = new ConcurrentHashMap<>();

  @AfterAll
  static void stop() {
    FIXTURES.values().forEach(fixture -> fixture.server.close());
  }

  private static Fixture start(JaxrsServers.Implementation runtime, boolean firewall) {
    Fixture fixture = new Fixture();
    RateLimitFilter filter =
        RateLimitFilter.builder()
            .rule(
                HttpRule.builder("product")
                    .path("/v1/product/**")
                    .limit(Limit.parse("1000000/1m"))
                    .build())
            .rule(
                HttpRule.builder("admin")
                    .path("/v1/admin")
                    .limit(Limit.parse("1000000/1m"))
                    .build())
            .pathFirewall(firewall ? PathFirewall.strict() : PathFirewall.off())
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
            .build();
    fixture.server = JaxrsServers.start(runtime, List.of(fixture.api, filter));
    return fixture;
  }

  static Stream<Arguments> cases() {
    List<Arguments> cases = new ArrayList<>();
    for (JaxrsServers.Implementation runtime : JaxrsServers.Implementation.values()) {
      for (boolean firewall : new boolean[] {true, false}) {
        for (Variant variant : VARIANTS) {
          cases.add(Arguments.of(runtime, firewall, variant));
        }
      }
    }
    return cases.stream();
  }

  @ParameterizedTest(name = "{0} firewall={1}: {2}")
  @MethodSource("cases")
  void request_spelledAnyWay_isRefusedOrCountedByItsRule(
      JaxrsServers.Implementation runtime, boolean firewall, Variant variant) {
    Fixture fixture =
        FIXTURES.computeIfAbsent(runtime + "/" + firewall, k -> start(runtime, firewall));
    int servedBefore = fixture.api.served.size();
    int countedBefore = fixture.counted(variant.rule());
    int allBefore = fixture.counted("product") + fixture.counted("admin");

    RawHttp.Response response = RawHttp.get(fixture.server.port(), "/app" + variant.target());

    boolean reached = fixture.api.served.size() > servedBefore;
    boolean counted = fixture.counted(variant.rule()) > countedBefore;
    assertThat(reached && !counted)
        .as(
            "%s firewall=%s %s: status %d, reached a resource but not counted by '%s'",
            runtime, firewall, variant, response.status(), variant.rule())
        .isFalse();
    if (variant.canonical()) {
      assertThat(response.status())
          .as("%s %s: a canonical path goes through, was %s", runtime, variant, response.head())
          .isEqualTo(200);
      assertThat(counted).isTrue();
    } else if (firewall) {
      assertThat(reached).as("%s: the firewall stops it before any resource", variant).isFalse();
      assertThat(response.status())
          .as("%s %s: refused, was %s", runtime, variant, response.head())
          .isBetween(400, 599);
      if (response.status() == 400 && response.isProblemJson()) {
        assertThat(fixture.counted("product") + fixture.counted("admin"))
            .as("%s: refused before any rule counts it", variant)
            .isEqualTo(allBefore);
      }
    }
  }
}
