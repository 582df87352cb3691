package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import jakarta.annotation.Priority;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotAuthorizedException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A request that a filter ends after resource matching, before an annotated method's rule runs (a
 * credentials check at the authentication priority answering 401, or throwing), is counted by the
 * method's rule all the same: else a client could guess credentials without limit. A filter before
 * matching ends requests that no method's rule sees; only rules over paths count those.
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

  /** The same check throwing, as a filter may: the runtime maps it to 401 with its challenge. */
  @Priority(Priorities.AUTHENTICATION)
  public static class ThrowingTokenCheck implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      if (!"t".equals(request.getHeaderString("X-Token"))) {
        throw new NotAuthorizedException("Bearer");
      }
    }
  }

  /** The same check before matching: no method is known when it ends a request. */
  @PreMatching
  @Priority(Priorities.AUTHENTICATION)
  public static class PreMatchingTokenCheck implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      if (!"t".equals(request.getHeaderString("X-Token"))) {
        request.abortWith(Response.status(401).entity("bad token").build());
      }
    }
  }

  /** A failed login's answer, with the headers of an answer of its own. */
  @Priority(Priorities.AUTHENTICATION)
  public static class LoginCheck implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      if (!"t".equals(request.getHeaderString("X-Token"))) {
        request.abortWith(
            Response.status(401)
                .entity("bad token")
                .header("WWW-Authenticate", "Bearer")
                .header("Set-Cookie", "failed=1; Path=/")
                .header("Location", "/app/login")
                .header("ETag", "\"v1\"")
                .header("Cache-Control", "max-age=600")
                .header("X-Trace", "kept")
                .build());
      }
    }
  }

  /**
   * A failed login's answer on a servlet container, part of it written straight on the servlet
   * response: a header, and the session cookie of a session it opens.
   */
  @Priority(Priorities.AUTHENTICATION)
  public static class ServletLoginCheck implements ContainerRequestFilter {
    @Context private HttpServletRequest servletRequest;
    @Context private HttpServletResponse servletResponse;

    @Override
    public void filter(ContainerRequestContext request) {
      if (!"t".equals(request.getHeaderString("X-Token"))) {
        servletResponse.addHeader("Set-Cookie", "direct=1; Path=/");
        servletRequest.getSession(true);
        request.abortWith(
            Response.status(401).entity("bad token").header("Set-Cookie", "failed=1").build());
      }
    }
  }

  /** A response filter that runs before the method's (a higher priority): notes what it saw. */
  @Priority(Priorities.USER)
  public static class StatusWitness implements ContainerResponseFilter {
    final ConcurrentLinkedQueue<Integer> seen = new ConcurrentLinkedQueue<>();

    @Override
    public void filter(ContainerRequestContext request, ContainerResponseContext response) {
      seen.add(response.getStatus());
      response.getHeaders().putSingle("Vary", "Origin");
    }
  }

  private void start(JaxrsServers.Implementation runtime) {
    start(runtime, new TokenCheck());
  }

  private void start(JaxrsServers.Implementation runtime, Object... filters) {
    List<Object> singletons = new ArrayList<>();
    singletons.add(vault);
    singletons.addAll(List.of(filters));
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

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void filterThrowsBeforeTheMethodRule_stillCounted_refusedOverTheLimit(
      JaxrsServers.Implementation runtime) {
    start(runtime, new ThrowingTokenCheck());

    HttpResponse<String> first = open("guess-1");
    open("guess-2");
    HttpResponse<String> third = open("guess-3");
    HttpResponse<String> right = open("t");

    assertThat(first.statusCode()).isEqualTo(401);
    assertThat(first.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    assertThat(third.statusCode()).as("the third guess in 10 s: " + third.body()).isEqualTo(429);
    assertThat(third.headers().firstValue("Retry-After")).isPresent();
    assertThat(right.statusCode()).isEqualTo(429);
    assertThat(vault.served).isEmpty();

    ticker.advance(Duration.ofSeconds(11));
    assertThat(open("t").body()).isEqualTo("opened");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void preMatchingFilterEndsRequest_notCountedByTheMethodRule_countedByAPathRule(
      JaxrsServers.Implementation runtime) {
    start(runtime, new PreMatchingTokenCheck());

    List<Integer> guesses = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      guesses.add(open("guess-" + i).statusCode());
    }

    assertThat(guesses).as("no method matched: @RateLimit never sees them").containsOnly(401);
    assertThat(open("t").body()).isEqualTo("opened");
    server.close();

    start(
        runtime,
        new PreMatchingTokenCheck(),
        RateLimitFilter.builder()
            .rule(HttpRule.builder("vault-path").path("/vault").limit(Limit.parse("2/10s")).build())
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .build());
    guesses.clear();
    for (int i = 1; i <= 4; i++) {
      guesses.add(open("guess-" + i).statusCode());
    }

    assertThat(guesses).as("a rule over paths counts them").containsExactly(401, 401, 429, 429);
  }

  /**
   * The limit of the replacement, as documented: what a filter wrote on the servlet response itself
   * is no part of the JAX-RS answer the refusal replaces, and the 429 carries it (RESTEasy on
   * Undertow, the servlet container of these tests).
   */
  @Test
  void refusalReplacingAnAnswer_onAServletContainer_keepsWhatWasWrittenOnTheServletResponse() {
    start(JaxrsServers.Implementation.RESTEASY, new ServletLoginCheck());

    HttpResponse<String> first = open("guess-1");
    open("guess-2");
    HttpResponse<String> refused = open("guess-3");

    assertThat(first.headers().allValues("Set-Cookie"))
        .anyMatch(c -> c.startsWith("failed=1"))
        .anyMatch(c -> c.startsWith("direct=1"))
        .anyMatch(c -> c.startsWith("JSESSIONID="));
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().allValues("Set-Cookie"))
        .as("the JAX-RS answer's cookie is dropped, the servlet response's own stay")
        .noneMatch(c -> c.startsWith("failed=1"))
        .anyMatch(c -> c.startsWith("direct=1"))
        .anyMatch(c -> c.startsWith("JSESSIONID="));
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void refusalReplacingAnAnswer_dropsItsCookiesChallengeAndEntityHeaders(
      JaxrsServers.Implementation runtime) {
    StatusWitness witness = new StatusWitness();
    start(runtime, new LoginCheck(), witness);

    HttpResponse<String> first = open("guess-1");
    open("guess-2");
    HttpResponse<String> refused = open("guess-3");

    assertThat(first.headers().firstValue("Set-Cookie")).hasValue("failed=1; Path=/");
    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.body()).contains("\"status\":429");
    for (String name :
        List.of("WWW-Authenticate", "Set-Cookie", "Location", "ETag", "Cache-Control")) {
      assertThat(refused.headers().firstValue(name)).as(name).isEmpty();
    }
    assertThat(refused.headers().firstValue("X-Trace")).hasValue("kept");
    assertThat(refused.headers().firstValue("Vary")).hasValue("Origin");
    assertThat(witness.seen)
        .as("a response filter that runs before the method's sees the answer it replaces")
        .containsExactly(401, 401, 401);
  }
}
