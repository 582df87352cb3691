package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.testkit.FakeTicker;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.test.context.TestPropertySource;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * Conditions, costs per request and the configured refusal, the same scenarios on each web stack
 * (the subclasses start a real server: Tomcat, Reactor Netty) through a real HTTP client. Each test
 * uses its own rule, since the context is shared; time stands still on the fake ticker.
 */
@TestPropertySource(
    properties = {
      "server.address=127.0.0.1",
      "slidingwindow.http.rate-limit-headers=true",
      "slidingwindow.http.refusal.status=503",
      "slidingwindow.http.refusal.content-type=application/json",
      "slidingwindow.http.refusal.body={\"error\":\"slow down\"}",
      "slidingwindow.http.rules.cond.paths=/t/cond/**",
      "slidingwindow.http.rules.cond.key=global",
      "slidingwindow.http.rules.cond.execute-condition=headerValue('X-Tier') != 'internal'",
      "slidingwindow.http.rules.cond.skip-condition=path.endsWith('/health')",
      "slidingwindow.http.rules.cond.limits[0].permits=2",
      "slidingwindow.http.rules.cond.limits[0].window=1m",
      "slidingwindow.http.rules.broken.paths=/t/broken",
      "slidingwindow.http.rules.broken.key=global",
      "slidingwindow.http.rules.broken.skip-condition=headerValue('X-Skip').length() > 0",
      "slidingwindow.http.rules.broken.limits[0].permits=1",
      "slidingwindow.http.rules.broken.limits[0].window=1m",
      "slidingwindow.http.rules.header.paths=/t/header",
      "slidingwindow.http.rules.header.key=global",
      "slidingwindow.http.rules.header.cost=2",
      "slidingwindow.http.rules.header.cost-header=X-Cost",
      "slidingwindow.http.rules.header.limits[0].permits=20",
      "slidingwindow.http.rules.header.limits[0].window=1m",
      "slidingwindow.http.rules.expr.paths=/t/expr",
      "slidingwindow.http.rules.expr.key=global",
      "slidingwindow.http.rules.expr.cost-expression=headerValue('X-Export') != null ? 4 : 1",
      "slidingwindow.http.rules.expr.limits[0].permits=5",
      "slidingwindow.http.rules.expr.limits[0].window=1m",
      "slidingwindow.http.rules.spelled.paths=/t/spelled/**",
      "slidingwindow.http.rules.spelled.key=global",
      "slidingwindow.http.rules.spelled.execute-condition=path.startsWith('/t/spelled/admin')",
      "slidingwindow.http.rules.spelled.cost-expression=rawPath.contains('%') ? 2 : 1",
      "slidingwindow.http.rules.spelled.limits[0].permits=3",
      "slidingwindow.http.rules.spelled.limits[0].window=1m",
      "slidingwindow.http.rules.refused.paths=/t/refused",
      "slidingwindow.http.rules.refused.limits[0].permits=1",
      "slidingwindow.http.rules.refused.limits[0].window=1m",
      "slidingwindow.http.rules.planned.paths=/t/planned",
      "slidingwindow.http.rules.planned.key=header:X-Api-Key",
      "slidingwindow.http.rules.planned.limits[0].permits=5",
      "slidingwindow.http.rules.planned.limits[0].window=10s",
      "slidingwindow.http.rules.planned.limits[1].permits=20",
      "slidingwindow.http.rules.planned.limits[1].window=1m",
      "slidingwindow.http.rules.planned.plans.free.limits[0].permits=5",
      "slidingwindow.http.rules.planned.plans.free.limits[0].window=10s",
      "slidingwindow.http.rules.planned.plan-keys.free[0]=header:x-api-key:free-1",
    })
abstract class RuleTermsScenarios {

  /** Every rule error the listener was told of, as "rule: message". */
  static final List<String> ERRORS = new CopyOnWriteArrayList<>();

  @SpringBootApplication
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker(5_000_000_000L);
    }

    @Bean
    RateLimitListener errorRecorder() {
      return new RateLimitListener() {
        @Override
        public void onError(HttpRule rule, RuntimeException error) {
          ERRORS.add(rule.name() + ": " + error.getMessage());
        }
      };
    }

    @RestController
    static class Api {
      @GetMapping({
        "/t/cond/a",
        "/t/cond/health",
        "/t/broken",
        "/t/header",
        "/t/expr",
        "/t/refused",
        "/t/spelled/admin",
        "/t/spelled/public",
        "/t/planned"
      })
      String ok() {
        return "ok";
      }
    }
  }

  /** Reactor Netty for the reactive stack; nested here so that no component scan finds it. */
  @Configuration(proxyBeanMethods = false)
  static class Netty {
    /** Reactor Netty, although Tomcat and Jetty are on the test class path too. */
    @Bean
    NettyReactiveWebServerFactory nettyReactiveWebServerFactory() {
      return new NettyReactiveWebServerFactory();
    }
  }

  @LocalServerPort int port;

  private HttpResponse<String> get(String path, String... headers)
      throws IOException, InterruptedException {
    return LoopbackHttp.get(port, path, headers);
  }

  private static String remaining(HttpResponse<String> response) {
    return response.headers().firstValue("RateLimit").orElse("none");
  }

  @Test
  void conditions_executeFalseOrSkipTrue_leaveTheRequestUncounted() throws Exception {
    for (int i = 0; i < 4; i++) {
      assertThat(get("/t/cond/a", "X-Tier", "internal").statusCode()).isEqualTo(200);
      assertThat(get("/t/cond/health").statusCode()).isEqualTo(200);
    }
    assertThat(get("/t/cond/a").statusCode()).isEqualTo(200);
    assertThat(get("/t/cond/a", "X-Tier", "gold").statusCode()).isEqualTo(200);

    HttpResponse<String> refused = get("/t/cond/a");

    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(get("/t/cond/health").statusCode()).isEqualTo(200);
  }

  /**
   * A condition reads the path as the dispatcher does, so a spelling that reaches the same handler
   * ({@code %61} for {@code a}) cannot turn the rule off; the raw spelling stays readable as {@code
   * rawPath} (here it doubles the cost).
   */
  @Test
  void condition_onPath_readsTheDecodedPathWhateverTheSpelling() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(get("/t/spelled/public").statusCode()).as("not under admin").isEqualTo(200);
    }
    assertThat(get("/t/spelled/admin").statusCode()).isEqualTo(200);

    HttpResponse<String> spelled = get("/t/spelled/%61dmin");
    HttpResponse<String> again = get("/t/spelled/%61%64min");

    assertThat(spelled.statusCode())
        .as("the same handler, counted twice (raw '%%')")
        .isEqualTo(200);
    assertThat(spelled.body()).isEqualTo("ok");
    assertThat(again.statusCode()).as("the rule's 3 permits are spent").isEqualTo(503);
    assertThat(get("/t/spelled/public").statusCode()).isEqualTo(200);
  }

  @Test
  void condition_thatThrows_appliesTheRuleAndTellsTheListener() throws Exception {
    ERRORS.removeIf(e -> e.startsWith("broken: ")); // from the other stack's context
    assertThat(get("/t/broken", "X-Skip", "yes").statusCode()).isEqualTo(200);
    assertThat(get("/t/broken", "X-Skip", "yes").statusCode()).isEqualTo(200);
    assertThat(ERRORS).noneMatch(e -> e.startsWith("broken: "));

    HttpResponse<String> first = get("/t/broken");
    HttpResponse<String> second = get("/t/broken");

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(second.statusCode()).as("a failing condition never exempts").isEqualTo(503);
    assertThat(ERRORS.stream().filter(e -> e.startsWith("broken: "))).hasSize(2);
  }

  @Test
  void costHeader_missingMalformedZeroOrNegative_takesTheRulesCost() throws Exception {
    assertThat(remaining(get("/t/header"))).isEqualTo("\"header\";r=18;t=61");
    assertThat(remaining(get("/t/header", "X-Cost", "abc"))).isEqualTo("\"header\";r=16;t=61");
    assertThat(remaining(get("/t/header", "X-Cost", "0"))).isEqualTo("\"header\";r=14;t=61");
    assertThat(remaining(get("/t/header", "X-Cost", "-7"))).isEqualTo("\"header\";r=12;t=61");
    assertThat(remaining(get("/t/header", "X-Cost", "1"))).isEqualTo("\"header\";r=10;t=61");
    assertThat(remaining(get("/t/header", "X-Cost", "3"))).isEqualTo("\"header\";r=7;t=61");

    HttpResponse<String> aboveLimit = get("/t/header", "X-Cost", "21");
    HttpResponse<String> huge = get("/t/header", "X-Cost", "99999999999999999999999");

    for (HttpResponse<String> refused : List.of(aboveLimit, huge)) {
      assertThat(refused.statusCode()).isEqualTo(503);
      assertThat(refused.headers().firstValue("Retry-After")).hasValue("60");
    }
    assertThat(remaining(get("/t/header", "X-Cost", "7")))
        .as("refused asks took nothing")
        .isEqualTo("\"header\";r=0;t=61");
  }

  @Test
  void costExpression_givesThePermitsOfEachRequest() throws Exception {
    assertThat(remaining(get("/t/expr"))).isEqualTo("\"expr\";r=4;t=61");
    assertThat(remaining(get("/t/expr", "X-Export", "csv"))).isEqualTo("\"expr\";r=0;t=61");

    assertThat(get("/t/expr").statusCode()).isEqualTo(503);
  }

  @Test
  void refusal_configured_answersItsStatusTypeAndBodyWithTheHeaders() throws Exception {
    assertThat(get("/t/refused").statusCode()).isEqualTo(200);

    HttpResponse<String> refused = get("/t/refused");

    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
    assertThat(refused.body()).isEqualTo("{\"error\":\"slow down\"}");
    assertThat(refused.headers().firstValue("Retry-After")).isPresent();
    assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"refused\";q=1;w=60");
  }

  /**
   * A key on a plan whose one limit equals the rule's first is told the plan's limit, named by the
   * rule, not the rule's two limits; a key on no plan is told the rule's.
   */
  @Test
  void headers_keyOnPlanWithARulesLimit_tellThePlanNotTheRule() throws Exception {
    HttpResponse<String> free = get("/t/planned", "X-Api-Key", "free-1");
    HttpResponse<String> other = get("/t/planned", "X-Api-Key", "other-1");

    assertThat(free.headers().firstValue("RateLimit-Policy")).hasValue("\"planned\";q=5;w=10");
    assertThat(remaining(free)).isEqualTo("\"planned\";r=4;t=11");
    assertThat(other.headers().firstValue("RateLimit-Policy"))
        .hasValue("\"planned-10s\";q=5;w=10, \"planned-60s\";q=20;w=60");
    assertThat(remaining(other)).isEqualTo("\"planned-10s\";r=4;t=11");
  }
}
