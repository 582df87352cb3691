package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.testkit.http.LoopbackBackend;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A real gateway ({@link PlansGateway}, Reactor Netty on a loopback port) whose route "plans" gives
 * free keys 5 and pro keys 20 per 10 s and every other key 2, driven by a real HTTP client; route
 * "plain" has no plans. Each backend's test starts the gateway its own way.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class GatewayPlansContract {

  private LoopbackBackend backend;
  private ConfigurableApplicationContext gateway;

  /** The gateway's base URI. */
  URI uri;

  /** Starts the gateway in front of {@code backend}. */
  abstract ConfigurableApplicationContext startGateway(URI backend);

  @BeforeAll
  void start() {
    backend = LoopbackBackend.start();
    gateway = startGateway(backend.uri());
    uri = GatewayTestApplication.uri(gateway);
    // The first request loads classes and, on Redis, connects: ready the gateway on route "plain"
    // from the client address, a key no test counts, so that each test's requests are quick.
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> Http.get(uri, "/plain/ready", "X-Api-Key", null).statusCode() == 200);
  }

  @AfterAll
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
    backend.close();
  }

  /** The answers to {@code n} requests of {@code path} with {@code X-Api-Key: key}. */
  List<HttpResponse<String>> send(String path, String key, int n) {
    List<HttpResponse<String>> responses = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      responses.add(Http.get(uri, path, "X-Api-Key", key));
    }
    return responses;
  }

  static long granted(List<HttpResponse<String>> responses) {
    return responses.stream().filter(r -> r.statusCode() == 200).count();
  }

  static String policy(HttpResponse<String> response) {
    return response.headers().firstValue("RateLimit-Policy").orElse("none");
  }

  @Test
  void freeKey_eightRequests_fiveGrantedAndToldFreesLimit() {
    int before = backend.hits();

    List<HttpResponse<String>> responses = send("/plans/a", "free-key-1", 8);

    assertThat(granted(responses)).isEqualTo(5);
    assertThat(responses.subList(0, 5)).allMatch(r -> r.statusCode() == 200);
    assertThat(policy(responses.get(0))).isEqualTo("\"plans\";q=5;w=10");
    assertThat(responses.get(7).statusCode()).isEqualTo(429);
    assertThat(policy(responses.get(7))).isEqualTo("\"plans\";q=5;w=10");
    assertThat(responses.get(7).headers().firstValue("Retry-After")).isPresent();
    assertThat(backend.hits() - before).as("requests that reached the backend").isEqualTo(5);
  }

  @Test
  void proKey_twentyFiveRequests_twentyGrantedAndToldProsLimit() {
    List<HttpResponse<String>> responses = send("/plans/b", "pro-key-1", 25);

    assertThat(granted(responses)).isEqualTo(20);
    assertThat(policy(responses.get(0))).isEqualTo("\"plans\";q=20;w=10");
    assertThat(responses.get(0).headers().firstValue("RateLimit"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("\"plans\";r=19;"));
  }

  @Test
  void issuedKeyOnNoPlan_getsTheRoutesLimits() {
    List<HttpResponse<String>> responses = send("/plans/c", "other-key-1", 5);

    assertThat(granted(responses)).isEqualTo(2);
    assertThat(policy(responses.get(0))).isEqualTo("\"plans\";q=2;w=10");
  }

  @Test
  void routeWithoutPlans_givesAProKeyItsOwnLimits() {
    List<HttpResponse<String>> responses = send("/plain/d", "pro-key-1", 5);

    assertThat(granted(responses)).isEqualTo(3);
    assertThat(policy(responses.get(0))).isEqualTo("\"plain\";q=3;w=10");
  }

  /**
   * A key on pro that was never issued, a value that spells pro's key as the route counts it, and
   * no key at all: each counts against the client's address, on no plan, together.
   */
  @Test
  void unissuedKeys_neverReachAPlan_countAgainstTheAddress() {
    List<HttpResponse<String>> responses = new ArrayList<>();
    responses.addAll(send("/plans/e", "pro-key-2", 2));
    responses.addAll(send("/plans/e", "header:x-api-key:pro-key-1", 2));
    responses.addAll(send("/plans/e", null, 2));

    assertThat(granted(responses)).isEqualTo(2);
    assertThat(responses).allMatch(r -> policy(r).equals("\"plans\";q=2;w=10"));
  }
}
