package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.servlet.RateLimitFilter;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.tomcat.TomcatWebServer;
import org.springframework.boot.web.server.context.WebServerApplicationContext;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;

/**
 * A Spring Boot 4 MVC application on Tomcat whose Redis is configured the usual way, with {@code
 * spring.data.redis.host} and {@code port} only: the limiter keeps its windows in that real
 * redis-server (Lettuce 7, the application's client), and the actuator's health reports it.
 */
class MvcBoot4IT {

  private static RedisServerProcess redis;
  private static ConfigurableApplicationContext app;
  private static URI uri;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Apps.ItemsAndOrders.class)
  static class App {}

  @BeforeAll
  static void start() {
    redis = RedisServerProcess.start();
    app =
        Apps.startWithoutGateway(
            App.class,
            Apps.withRedis(
                redis,
                Map.of(
                    "slidingwindow.http.rate-limit-headers",
                    true,
                    "slidingwindow.http.rules.items.paths",
                    "/api/items/**",
                    "slidingwindow.http.rules.items.limits[0].permits",
                    3,
                    "slidingwindow.http.rules.items.limits[0].window",
                    "1m",
                    "management.endpoint.health.show-details",
                    "always",
                    "management.endpoints.web.exposure.include",
                    "health,slidingwindow")));
    uri = Apps.uri(app);
  }

  @AfterAll
  static void stop() {
    app.close();
    redis.close();
  }

  @Test
  void context_boot4ServletApplication_registersTheFilterOnTomcatWithTheApplicationsRedis() {
    assertThat(SpringBootVersion.getVersion()).startsWith("4.");
    assertThat(((WebServerApplicationContext) app).getWebServer())
        .isInstanceOf(TomcatWebServer.class);
    assertThat(app.getBeansOfType(FilterRegistrationBean.class).values())
        .anySatisfy(r -> assertThat(r.getFilter()).isInstanceOf(RateLimitFilter.class));
    assertThat(app.getBeansOfType(RedisBackend.class)).hasSize(1);
  }

  @Test
  void rule_afterThree_answers429WithHeadersAndKeepsItsWindowInTheApplicationsRedis() {
    redis.cli("FLUSHALL");

    HttpResponse<String> refused =
        RateLimitAssertions.grantsThenRefuses(uri, "/api/items/1", null, "items", 3, 60);

    assertThat(refused.headers().firstValue("Content-Type"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("application/problem+json"));
    assertThat(redis.cli("--scan", "--pattern", "sw:items*"))
        .as("the rule's keys in the application's Redis")
        .isNotBlank();
  }

  @Test
  void rateLimitAnnotation_afterTwo_answers429AndKeepsItsWindowInRedis() {
    RateLimitAssertions.grantsThenRefuses(uri, "/orders/7", null, "order-reads", 2, 60);

    assertThat(Http.get(uri, "/orders/8", null).statusCode()).isEqualTo(200);
    assertThat(redis.cli("--scan", "--pattern", "sw:order-reads*")).isNotBlank();
  }

  @Test
  void dashboardEndpoint_boot4Actuator_answersTheRulesDecisionsAsJson() {
    // Granted or refused (the rule keys by client address, shared with the other tests), it is
    // one decision of the rule.
    assertThat(Http.get(uri, "/api/items/dash", null).statusCode()).isIn(200, 429);

    HttpResponse<String> feed = Http.get(uri, "/actuator/slidingwindow", null);

    assertThat(feed.statusCode()).isEqualTo(200);
    assertThat(feed.body())
        .contains("\"topRefused\"")
        .contains("\"config\"")
        .contains("\"rule\":\"items\"")
        .contains("/api/items/**");
  }

  @Test
  void quotaOperations_boot4Actuator_answerOrSayWhyNot() throws Exception {
    assertThat(Http.get(uri, "/api/items/quota", null).statusCode()).isIn(200, 429);

    HttpResponse<String> peek = Http.get(uri, "/actuator/slidingwindow/items/ip:127.0.0.1", null);
    // The rule counts in Redis, whose limiters peek with one script call.
    assertThat(peek.statusCode()).isEqualTo(200);
    assertThat(peek.body()).contains("\"limits\"").contains("\"remaining\"");
    HttpResponse<String> unknown =
        Http.get(uri, "/actuator/slidingwindow/no-such-rule/ip:127.0.0.1", null);
    assertThat(unknown.statusCode()).isEqualTo(404);
  }

  @Test
  void dashboardPage_boot4Actuator_servedWithItsFilesAndUnknownNamesRefused() {
    HttpResponse<String> page = Http.get(uri, "/actuator/slidingwindow/index.html", null);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    assertThat(page.body()).contains("data-feed=\"../slidingwindow\"");

    HttpResponse<String> script =
        Http.get(uri, "/actuator/slidingwindow/dashboard/uPlot.iife.min.js", null);
    assertThat(script.statusCode()).isEqualTo(200);
    assertThat(script.headers().firstValue("Content-Type").orElse(""))
        .startsWith("text/javascript");
    assertThat(script.body()).contains("uPlot");
    HttpResponse<String> style =
        Http.get(uri, "/actuator/slidingwindow/dashboard/dashboard.css", null);
    assertThat(style.headers().firstValue("Content-Type").orElse("")).startsWith("text/css");
    assertThat(Http.get(uri, "/actuator/slidingwindow/dashboard/nothing.js", null).statusCode())
        .isEqualTo(404);
    assertThat(Http.get(uri, "/actuator/slidingwindow/nothing.html", null).statusCode())
        .isEqualTo(404);
  }

  @Test
  void health_boot4Actuator_reportsTheLimitersRedisUp() {
    HttpResponse<String> health = Http.get(uri, "/actuator/health/slidingwindow", null);

    assertThat(health.statusCode()).isEqualTo(200);
    assertThat(health.body()).contains("\"status\":\"UP\"").contains("\"limiters\"");
  }
}
