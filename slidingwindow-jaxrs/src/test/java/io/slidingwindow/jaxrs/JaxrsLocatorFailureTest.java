package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import jakarta.annotation.Priority;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A sub-resource locator runs during resource matching, before any filter bound to the method it
 * leads to: a request that ends in the locator (a lookup that throws 404 for an unknown token) or
 * right after it (no method of the sub-resource for the request's method, 405) reaches no resource
 * method. {@code @RateLimit} on the sub-resource's method counts them on their response all the
 * same, on Jersey and RESTEasy; before, it counted none, and a client could try tokens against the
 * locator without limit. A rule over the path ({@link RateLimitFilter}) counts them before the
 * locator runs.
 */
class JaxrsLocatorFailureTest extends JaxrsServerCase {

  private final Shares shares = new Shares();

  /** Looks a share up by its token in the locator, counting each lookup. */
  @Path("shares")
  public static class Shares {
    final AtomicInteger lookups = new AtomicInteger();

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String all() {
      return "all";
    }

    @GET
    @Path("list")
    @Produces(MediaType.TEXT_PLAIN)
    public String list() {
      return "list";
    }

    @Path("{token}")
    public Share share(@PathParam("token") String token) {
      lookups.incrementAndGet();
      if (!token.startsWith("issued")) {
        throw new NotFoundException();
      }
      return new Share();
    }
  }

  /** A document by id, read by a method or reached further through a locator of the same path. */
  @Path("docs")
  public static class Docs {
    @GET
    @Path("{id}")
    @Produces(MediaType.TEXT_PLAIN)
    public String doc(@PathParam("id") String id) {
      return "doc " + id;
    }

    @Path("{id}")
    public Notes notes(@PathParam("id") String id) {
      if (!id.startsWith("issued")) {
        throw new NotFoundException();
      }
      return new Notes();
    }
  }

  /** A document's notes, limited. */
  public static class Notes {
    @GET
    @Path("notes")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "2/1h", name = "notes")
    public String notes() {
      return "notes";
    }
  }

  /** The shared thing, limited. */
  public static class Share {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "2/1h", name = "share")
    public String get() {
      return "shared";
    }
  }

  /**
   * A credentials check of the application after matching, at the lowest priority there is, as low
   * as anything the feature registers: 401 without the token.
   */
  @Priority(Integer.MIN_VALUE)
  public static class EarliestTokenCheck implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      if (!"t".equals(request.getHeaderString("X-Token"))) {
        request.abortWith(Response.status(401).entity("bad token").build());
      }
    }
  }

  private int status(String method, String path, String... headers) {
    HttpResponse<String> response = Http.send(method, server.uri(path), headers);
    return response.statusCode();
  }

  private void startWithFeature(JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(shares, new Docs(), feature()));
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void rateLimitOnSubResource_countsGuessesEndingInItsLocator(JaxrsServers.Implementation runtime) {
    startWithFeature(runtime);

    assertThat(
            List.of(
                status("GET", "/shares/guess1"),
                status("GET", "/shares/guess2"),
                status("GET", "/shares/guess3"),
                status("GET", "/shares/issued-1")))
        .as("guesses that end in the locator count against the method's 2/1h")
        .containsExactly(404, 404, 429, 429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void rateLimitOnSubResource_locatorBesideAMethodOfTheSamePath_countsGuessesThatGoOn(
      JaxrsServers.Implementation runtime) {
    startWithFeature(runtime);

    assertThat(
            List.of(
                status("GET", "/docs/guess1/notes"),
                status("GET", "/docs/guess2/notes"),
                status("GET", "/docs/guess3/notes"),
                status("GET", "/docs/issued-1/notes")))
        .as("a path that goes on past the locator's template was taken by the locator")
        .containsExactly(404, 404, 429, 429);
    assertThat(
            List.of(status("GET", "/docs/a"), status("GET", "/docs/b"), status("GET", "/docs/c")))
        .as("the method of the same path is not counted under the notes' rule")
        .containsExactly(200, 200, 200);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void rateLimitOnSubResource_counts405AfterItsLocator(JaxrsServers.Implementation runtime) {
    startWithFeature(runtime);

    assertThat(
            List.of(
                status("POST", "/shares/issued-1"),
                status("POST", "/shares/issued-2"),
                status("POST", "/shares/issued-3")))
        .as("a 405 after the locator tells a good token; counted, the third is refused")
        .containsExactly(405, 405, 429);
    assertThat(status("GET", "/shares/issued-1")).isEqualTo(429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void rateLimitOnSubResource_methodLimitHoldsAndWindowMovesOn(
      JaxrsServers.Implementation runtime) {
    startWithFeature(runtime);

    assertThat(
            List.of(
                status("GET", "/shares/issued-1"),
                status("GET", "/shares/guess1"),
                status("GET", "/shares/issued-1")))
        .containsExactly(200, 404, 429);
    ticker.advance(Duration.ofHours(2));
    assertThat(status("GET", "/shares/issued-1")).isEqualTo(200);
    assertThat(shares.lookups.get()).as("each request ran the locator once").isEqualTo(4);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void rateLimitOnSubResource_rootMethodsNotCountedUnderIt(JaxrsServers.Implementation runtime) {
    startWithFeature(runtime);

    assertThat(
            List.of(
                status("GET", "/shares"),
                status("POST", "/shares/list"),
                status("GET", "/shares/list"),
                status("GET", "/shares/list"),
                status("GET", "/nowhere/x")))
        .as("no locator ran: none of these is the method's")
        .containsExactly(200, 405, 200, 200, 404);
    assertThat(List.of(status("GET", "/shares/issued-1"), status("GET", "/shares/issued-1")))
        .containsExactly(200, 200);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void rateLimitOnSubResource_requestEndedByAFilterAsEarlyAsAnyIsCountedOnce(
      JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new EarliestTokenCheck(), shares, feature()));

    assertThat(
            List.of(
                status("GET", "/shares/issued-1"),
                status("GET", "/shares/issued-1"),
                status("GET", "/shares/issued-1")))
        .as("each wrong token reached the method through the locator: counted once, not twice")
        .containsExactly(401, 401, 429);
    ticker.advance(Duration.ofHours(2));
    assertThat(
            List.of(
                status("GET", "/shares/issued-1", "X-Token", "t"),
                status("GET", "/shares/guess1", "X-Token", "t"),
                status("GET", "/shares/issued-1", "X-Token", "t")))
        .as("served and guessed requests still count once each")
        .containsExactly(200, 404, 429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void rateLimitOnSubResource_optionsTheRuntimeAnswersAreNotCounted(
      JaxrsServers.Implementation runtime) {
    startWithFeature(runtime);

    assertThat(
            List.of(
                status("OPTIONS", "/shares/issued-1"),
                status("OPTIONS", "/shares/issued-2"),
                status("OPTIONS", "/shares/issued-3")))
        .as("the runtime answers OPTIONS itself below the locator")
        .containsExactly(200, 200, 200);
    assertThat(List.of(status("GET", "/shares/issued-1"), status("GET", "/shares/issued-1")))
        .as("no preflight took a permit of the method")
        .containsExactly(200, 200);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void rateLimitOnSubResource_optionsEndingInItsLocatorAreCounted(
      JaxrsServers.Implementation runtime) {
    startWithFeature(runtime);

    assertThat(
            List.of(
                status("OPTIONS", "/shares/guess1"),
                status("OPTIONS", "/shares/guess2"),
                status("OPTIONS", "/shares/guess3")))
        .as("OPTIONS is no way around the limit to guess tokens")
        .containsExactly(404, 404, 429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void ruleOverThePath_countsRequestsEndingInTheLocator(JaxrsServers.Implementation runtime) {
    server =
        JaxrsServers.start(
            runtime,
            List.of(
                shares,
                RateLimitFilter.builder()
                    .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
                    .rule(
                        HttpRule.builder("shares")
                            .path("/shares/*")
                            .limit(Limit.parse("3/1h"))
                            .build())
                    .build()));

    assertThat(
            List.of(
                status("GET", "/shares/guess1"),
                status("POST", "/shares/issued-1"),
                status("GET", "/shares/guess2"),
                status("GET", "/shares/guess3"),
                status("GET", "/shares/issued-1")))
        .containsExactly(404, 405, 404, 429, 429);
    assertThat(shares.lookups.get()).as("refused guesses never reach the locator").isEqualTo(3);
  }
}
