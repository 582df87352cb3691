package io.slidingwindow.spring.boot.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.http.RateLimiterFactory;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalManagementPort;
import org.springframework.context.annotation.Bean;

/**
 * A rule whose limiter comes from the application's own {@link RateLimiterFactory} (here one that
 * wraps each in-process limiter in a proxy, as an application's decorator would) may keep plans
 * where a change cannot reach them: the plan change answers 501 and changes nothing, while the
 * plans can still be read.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = PlanChangeOwnFactoryTest.App.class,
    properties = {
      "server.address=127.0.0.1",
      "management.server.port=0",
      "management.server.address=127.0.0.1",
      "management.endpoints.web.exposure.include=slidingwindow",
      "slidingwindow.http.rules.api.paths=/api/**",
      "slidingwindow.http.rules.api.limits[0].permits=2",
      "slidingwindow.http.rules.api.limits[0].window=1m",
      "slidingwindow.http.rules.api.plans.free.limits[0].permits=5",
      "slidingwindow.http.rules.api.plans.free.limits[0].window=1m",
    })
class PlanChangeOwnFactoryTest {

  @SpringBootApplication
  static class App {
    @Bean
    RateLimiterFactory ownLimiters() {
      RateLimiterFactory inMemory = RateLimiterFactory.inMemory();
      return new RateLimiterFactory() {
        @Override
        public KeyedRateLimiter<String> create(
            String ruleName, List<Limit> limits, boolean countRefusedAttempts) {
          return wrapped(inMemory.create(ruleName, limits, countRefusedAttempts));
        }

        @Override
        public KeyedRateLimiter<String> create(
            String ruleName,
            List<Limit> limits,
            boolean countRefusedAttempts,
            PlanResolver<String> plans) {
          return wrapped(inMemory.create(ruleName, limits, countRefusedAttempts, plans));
        }
      };
    }

    @SuppressWarnings("unchecked")
    private static KeyedRateLimiter<String> wrapped(KeyedRateLimiter<String> limiter) {
      return (KeyedRateLimiter<String>)
          Proxy.newProxyInstance(
              KeyedRateLimiter.class.getClassLoader(),
              new Class<?>[] {KeyedRateLimiter.class},
              (proxy, method, args) -> {
                try {
                  return method.invoke(limiter, args);
                } catch (InvocationTargetException e) {
                  throw e.getCause();
                }
              });
    }
  }

  @LocalManagementPort int managementPort;

  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private HttpResponse<String> send(String method, String path, String body) throws Exception {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + managementPort + path))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", "application/json");
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void changePlan_applicationsOwnFactory_notImplementedAndNothingChanged() throws Exception {
    HttpResponse<String> change =
        send("POST", "/actuator/slidingwindow/api/plans/free", "{\"limits\":\"8/1m\"}");
    assertThat(change.statusCode()).as(change.body()).isEqualTo(501);
    assertThat(new ObjectMapper().readTree(change.body()).get("error").asText())
        .contains("rule api: plan changes are not supported");
    HttpResponse<String> plan = send("GET", "/actuator/slidingwindow/api/plans/free", null);
    assertThat(plan.statusCode()).isEqualTo(200);
    assertThat(
            new ObjectMapper().readTree(plan.body()).get("limits").get(0).get("permits").asLong())
        .isEqualTo(5);
  }
}
