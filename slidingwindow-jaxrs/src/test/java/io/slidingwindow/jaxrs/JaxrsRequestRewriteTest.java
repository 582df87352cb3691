package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import jakarta.annotation.Priority;
import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.glassfish.jersey.server.ServerProperties;
import org.glassfish.jersey.server.filter.HttpMethodOverrideFilter;
import org.jboss.resteasy.core.AcceptHeaderByFileSuffixFilter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The path rules decide on the method and URI a request is routed with: pre-matching filters that
 * rewrite them (the runtimes' own and an application's, at their default priorities) run before the
 * rules, and a request that another pre-matching filter ends is counted all the same.
 */
class JaxrsRequestRewriteTest {

  private final FakeTicker ticker = new FakeTicker();
  private final Orders orders = new Orders();
  private JaxrsServers.Running server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** Orders and a login, recording what each call reached. */
  @Path("/")
  public static class Orders {
    final ConcurrentLinkedQueue<String> served = new ConcurrentLinkedQueue<>();

    @DELETE
    @Path("orders/{id}")
    @Produces(MediaType.TEXT_PLAIN)
    public String delete(@PathParam("id") String id) {
      served.add("delete " + id);
      return "deleted " + id;
    }

    @POST
    @Path("orders/{id}")
    @Produces(MediaType.TEXT_PLAIN)
    public String update(@PathParam("id") String id) {
      served.add("update " + id);
      return "updated " + id;
    }

    @GET
    @Path("login")
    @Produces({MediaType.TEXT_PLAIN, MediaType.APPLICATION_JSON})
    public String login() {
      served.add("login");
      return "welcome";
    }
  }

  /**
   * An application's pre-matching filter, at the default priority: {@code /v0/...} is {@code /...}.
   */
  @PreMatching
  public static class LegacyPaths implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      UriInfo uri = request.getUriInfo();
      String path = uri.getPath();
      String relative = path.startsWith("/") ? path.substring(1) : path;
      if (relative.startsWith("v0/")) {
        request.setRequestUri(
            uri.getBaseUriBuilder()
                .path(relative.substring(3))
                .replaceQuery(uri.getRequestUri().getRawQuery())
                .build());
      }
    }
  }

  /** An application's pre-matching check that ends requests without {@code X-Token}. */
  @PreMatching
  public static class TokenCheck implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      if (request.getHeaderString("X-Token") == null) {
        request.abortWith(Response.status(401).entity("no token").build());
      }
    }
  }

  /** {@link TokenCheck} at the authentication priority, which runs before the default. */
  @PreMatching
  @Priority(Priorities.AUTHENTICATION)
  public static class EarlyTokenCheck implements ContainerRequestFilter {
    private final TokenCheck check = new TokenCheck();

    @Override
    public void filter(ContainerRequestContext request) {
      check.filter(request);
    }
  }

  private RateLimitFilter filter(HttpRule rule) {
    return RateLimitFilter.builder()
        .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
        .rateLimitHeaders(true)
        .rule(rule)
        .build();
  }

  private RateLimitFilter deletes() {
    return filter(
        HttpRule.builder("deletes")
            .path("/orders/**")
            .methods("DELETE")
            .limit(Limit.parse("1/1h"))
            .build());
  }

  private RateLimitFilter logins() {
    return filter(HttpRule.builder("logins").path("/login").limit(Limit.parse("1/1h")).build());
  }

  private void start(JaxrsServers.Implementation runtime, Object... singletons) {
    List<Object> all = new ArrayList<>(List.of(singletons));
    all.add(orders);
    server = JaxrsServers.start(runtime, all);
  }

  private HttpResponse<String> send(String method, String path, String... headers) {
    return Http.send(method, server.uri(path), headers);
  }

  private static void assertRefused(HttpResponse<String> response) {
    assertThat(response.statusCode()).isEqualTo(429);
    assertThat(response.headers().firstValue("Retry-After")).isPresent();
    assertThat(response.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/problem+json");
    assertThat(response.body()).contains("\"status\":429");
  }

  @ParameterizedTest
  @ValueSource(strings = {"query", "header"})
  void jerseyMethodOverride_postOverriddenToDelete_countedByTheDeleteRule(String source) {
    start(
        JaxrsServers.Implementation.JERSEY,
        new HttpMethodOverrideFilter(
            HttpMethodOverrideFilter.Source.QUERY, HttpMethodOverrideFilter.Source.HEADER),
        deletes());
    boolean query = source.equals("query");
    String suffix = query ? "?_method=DELETE" : "";
    String[] headers = query ? new String[0] : new String[] {"X-HTTP-Method-Override", "DELETE"};

    HttpResponse<String> first = send("POST", "/orders/1" + suffix, headers);
    HttpResponse<String> second = send("POST", "/orders/2" + suffix, headers);

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("deleted 1");
    assertRefused(second);
    assertThat(orders.served).containsExactly("delete 1");
    assertThat(send("POST", "/orders/3").statusCode()).as("a plain POST").isEqualTo(200);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void mediaTypeMappings_loginJson_countedByTheLoginRule(JaxrsServers.Implementation runtime) {
    Map<String, MediaType> json = Map.of("json", MediaType.APPLICATION_JSON_TYPE);
    List<Object> singletons = new ArrayList<>(List.of(orders, logins()));
    if (runtime == JaxrsServers.Implementation.JERSEY) {
      server = JaxrsServers.jersey(singletons, Map.of(ServerProperties.MEDIA_TYPE_MAPPINGS, json));
    } else {
      // What RESTEasy's deployment registers for resteasy.media.type.mappings.
      AcceptHeaderByFileSuffixFilter suffixes = new AcceptHeaderByFileSuffixFilter();
      suffixes.setMediaTypeMappings(json);
      singletons.add(suffixes);
      server = JaxrsServers.start(runtime, singletons);
    }

    HttpResponse<String> first = send("GET", "/login.json");
    HttpResponse<String> second = send("GET", "/login.json");

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/json");
    assertRefused(second);
    assertThat(send("GET", "/login").statusCode()).isEqualTo(429);
    assertThat(orders.served).containsExactly("login");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void applicationFilterRewritesPath_countedByTheRuleOfTheNewPath(
      JaxrsServers.Implementation runtime) {
    start(runtime, new LegacyPaths(), logins());

    assertThat(send("GET", "/v0/login").statusCode()).isEqualTo(200);
    assertRefused(send("GET", "/v0/login"));
    assertRefused(send("GET", "/login"));
    assertThat(orders.served).containsExactly("login");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void applicationFilterEndsRequest_stillCounted_refusalReplacesItsAnswer(
      JaxrsServers.Implementation runtime) {
    for (ContainerRequestFilter check : List.of(new TokenCheck(), new EarlyTokenCheck())) {
      start(runtime, check, logins());

      HttpResponse<String> first = send("GET", "/login");
      HttpResponse<String> second = send("GET", "/login");
      HttpResponse<String> withToken = send("GET", "/login", "X-Token", "t");

      assertThat(first.statusCode()).as("%s", check).isEqualTo(401);
      assertThat(first.body()).isEqualTo("no token");
      assertThat(first.headers().firstValue("RateLimit").orElseThrow())
          .startsWith("\"logins\";r=0;");
      assertRefused(second);
      assertRefused(withToken);
      assertThat(orders.served).isEmpty();
      server.close();
      server = null;
    }
  }
}
