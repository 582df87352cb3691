package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import jakarta.annotation.Priority;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A request that a filter ends after resource matching, before an annotated method's rule runs (a
 * credentials check at the authentication priority answering 401), is counted by the method's rule
 * all the same: else a client could guess credentials without limit.
 */
class JaxrsMethodAbortTest {

  private final FakeTicker ticker = new FakeTicker();
  private final Vault vault = new Vault();
  private JaxrsServers.Running server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** A limited resource, recording each call that reached it. */
  @Path("/")
  public static class Vault {
    final ConcurrentLinkedQueue<String> served = new ConcurrentLinkedQueue<>();

    @GET
    @Path("vault")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "2/10s", name = "vault")
    public String open() {
      served.add("vault");
      return "opened";
    }
  }

  /** A credentials check after matching, before the method's rule: 401 without the token. */
  @Priority(Priorities.AUTHENTICATION)
  public static class TokenCheck implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      if (!"t".equals(request.getHeaderString("X-Token"))) {
        request.abortWith(Response.status(401).entity("bad token").build());
      }
    }
  }

  private void start(JaxrsServers.Implementation runtime) {
    List<Object> singletons = new ArrayList<>();
    singletons.add(vault);
    singletons.add(new TokenCheck());
    singletons.add(
        RateLimitFeature.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .rateLimitHeaders(true)
            .build());
    server = JaxrsServers.start(runtime, singletons);
  }

  private HttpResponse<String> open(String token) {
    return Http.get(server.uri("/vault"), "X-Token", token);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void filterEndsRequestBeforeTheMethodRule_stillCounted_refusalReplacesItsAnswer(
      JaxrsServers.Implementation runtime) {
    start(runtime);

    HttpResponse<String> first = open("guess-1");
    HttpResponse<String> second = open("guess-2");
    List<Integer> later = new ArrayList<>();
    for (int i = 3; i <= 6; i++) {
      later.add(open("guess-" + i).statusCode());
    }
    HttpResponse<String> right = open("t");

    assertThat(first.statusCode()).isEqualTo(401);
    assertThat(first.body()).isEqualTo("bad token");
    assertThat(later).as("guesses over the limit").containsOnly(429);
    assertThat(second.headers().firstValue("RateLimit"))
        .hasValueSatisfying(value -> assertThat(value).startsWith("\"vault\";r=0;"));
    assertThat(right.statusCode()).isEqualTo(429);
    assertThat(right.headers().firstValue("Retry-After")).isPresent();
    assertThat(right.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/problem+json");
    assertThat(right.body()).contains("\"status\":429");
    assertThat(vault.served).isEmpty();

    ticker.advance(Duration.ofSeconds(11));
    assertThat(open("t").body()).isEqualTo("opened");
    assertThat(vault.served).containsExactly("vault");
  }
}
