package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.StatusRanges;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.RefundFailingLimiter;
import jakarta.annotation.Priority;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.NotAuthorizedException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Settlement of the filter's rules that count only some statuses, on real servers: with the final
 * status of the answer, once, whichever way the answer is made (returned, mapped from an exception,
 * an entity that fails to be written, an asynchronous resume, cancel or time-out), and without
 * breaking the answer or the other response filters when a backend's refund throws an Error.
 */
class JaxrsSettlementTest {

  private static final NoClassDefFoundError REFUND_ERROR =
      new NoClassDefFoundError("the backend's client");

  private final FakeTicker ticker = new FakeTicker();
  private final ExecutorService later = Executors.newFixedThreadPool(2);
  private final Desk desk = new Desk(later);
  private volatile RefundFailingLimiter broken;
  private JaxrsServers.Running server;

  @AfterEach
  void stop() throws InterruptedException {
    if (server != null) {
      server.close();
    }
    later.shutdownNow();
    later.awaitTermination(10, TimeUnit.SECONDS);
  }

  /** The resources: a limited method, failures, streamed answers and asynchronous ones. */
  @Path("/")
  @Produces(MediaType.TEXT_PLAIN)
  public static class Desk {
    private final ExecutorService later;

    Desk(ExecutorService later) {
      this.later = later;
    }

    @GET
    @Path("vault")
    @RateLimit(limits = "2/1h", name = "vault")
    public String vault() {
      return "opened";
    }

    @GET
    @Path("missing")
    public String missing() {
      throw new NotFoundException();
    }

    @GET
    @Path("ok")
    public String ok() {
      return "ok";
    }

    /** A download that checks the token as it starts to write, as a streamed answer may. */
    @GET
    @Path("download")
    public StreamingOutput download(@HeaderParam("X-Token") String token) {
      return out -> {
        if (!"t".equals(token)) {
          throw new NotAuthorizedException("Bearer");
        }
        out.write("file".getBytes(StandardCharsets.UTF_8));
      };
    }

    /** A stream that fails once much of it was sent: the answer is committed with 200. */
    @GET
    @Path("broken")
    public StreamingOutput broken() {
      return out -> {
        out.write(new byte[300_000]);
        out.flush();
        throw new IllegalStateException("the disk went away");
      };
    }

    /** An answer that {@link SignatureCheck} fails after writing unless {@code token} is t. */
    @GET
    @Path("signed")
    public Response signed(@QueryParam("token") String token) {
      return Response.ok("signed").header("X-Check", String.valueOf(token)).build();
    }

    @GET
    @Path("later")
    public void later(@QueryParam("how") String how, @Suspended AsyncResponse async) {
      if ("timeout".equals(how)) {
        async.setTimeout(50, TimeUnit.MILLISECONDS); // the runtime answers 503
        return;
      }
      later.execute(
          () -> {
            switch (how) {
              case "fail" -> async.resume(new NotAuthorizedException("Bearer"));
              case "cancel" -> async.cancel();
              default -> async.resume("later");
            }
          });
    }

    @GET
    @Path("staged")
    public CompletionStage<String> staged(@QueryParam("how") String how) {
      return CompletableFuture.supplyAsync(
          () -> {
            if ("fail".equals(how)) {
              throw new NotAuthorizedException("Bearer");
            }
            return "staged";
          },
          later);
    }
  }

  /** A credentials check after matching, before the method's rule: 401 without the token. */
  @Priority(Priorities.AUTHENTICATION)
  public static class TokenCheck implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      if (request.getUriInfo().getPath().endsWith("vault")
          && !"t".equals(request.getHeaderString("X-Token"))) {
        request.abortWith(Response.status(401).entity("bad token").build());
      }
    }
  }

  /**
   * A check before matching that ends requests to {@code /gate} with an answer whose entity fails
   * as it starts to be written, with an exception that a mapper answers 401.
   */
  @PreMatching
  @Priority(Priorities.AUTHENTICATION)
  public static class StreamedRefusal implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      if (request.getUriInfo().getPath().endsWith("gate")) {
        StreamingOutput refusal =
            out -> {
              throw new NotAuthorizedException("Bearer");
            };
        request.abortWith(Response.ok(refusal, MediaType.TEXT_PLAIN_TYPE).build());
      }
    }
  }

  /**
   * An application's writer interceptor, which runs inside the filter's (the filter's has the
   * lowest priority, so it is the first): it lets the entity be written, then fails an answer whose
   * {@code X-Check} is there and not t, with an exception that a mapper answers 401.
   */
  @Priority(Priorities.ENTITY_CODER)
  public static class SignatureCheck implements WriterInterceptor {
    @Override
    public void aroundWriteTo(WriterInterceptorContext context) throws IOException {
      context.proceed();
      Object check = context.getHeaders().getFirst("X-Check");
      if (check != null && !"t".equals(check)) {
        throw new NotAuthorizedException("Bearer");
      }
    }
  }

  /** The in-memory backend; the rule named {@code errors} cannot give permits back. */
  private RateLimiterFactory refundFailingForErrors() {
    RateLimiterFactory memory = RateLimiterFactory.inMemory(ticker, 1_000);
    return (name, limits, countRefused) -> {
      var windows = memory.create(name, limits, countRefused);
      if (!name.equals("errors")) {
        return windows;
      }
      broken = new RefundFailingLimiter(windows, REFUND_ERROR, RefundFailingLimiter.Async.THROWN);
      return broken;
    };
  }

  private static HttpRule rule(String name, String path, String limit, String statuses) {
    return HttpRule.builder(name)
        .path(path)
        .limit(Limit.parse(limit))
        .countStatuses(StatusRanges.parse(statuses))
        .build();
  }

  private void start(JaxrsServers.Implementation runtime, RateLimitFilter filter) {
    List<Object> singletons = new ArrayList<>();
    singletons.add(desk);
    singletons.add(new TokenCheck());
    singletons.add(new StreamedRefusal());
    singletons.add(new SignatureCheck());
    singletons.add(filter);
    singletons.add(
        RateLimitFeature.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .build());
    server = JaxrsServers.start(runtime, singletons);
  }

  private int get(String path, String... headers) {
    return Http.get(server.uri(path), headers).statusCode();
  }

  /**
   * A refund that throws an Error, once every rule's refund was asked for, is logged and goes no
   * further: the application's answer goes on (a failure's 404, a good 200), and the response
   * filters after the filter's still run, so the method's rule counts wrong tokens that a filter
   * answered 401 and refuses the third. Before, the Error left the response filter: the runtime
   * answered 500 in place of every answer, and the method's rule counted nothing on the response.
   */
  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void refundThrowsAnError_answersGoOn_otherRulesRefunded_methodRuleStillCountsOnTheResponse(
      JaxrsServers.Implementation runtime) {
    start(
        runtime,
        RateLimitFilter.builder()
            .limiterFactory(refundFailingForErrors())
            .rule(rule("errors", "/**", "100/1h", "500-599"))
            .rule(rule("misses", "/missing", "1/1h", "500-599"))
            .build());

    List<Integer> guesses = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      guesses.add(get("/vault", "X-Token", "guess-" + i));
    }
    List<Integer> misses = List.of(get("/missing"), get("/missing"), get("/missing"));
    var ok = Http.get(server.uri("/ok"));

    assertThat(guesses).as("wrong tokens").containsExactly(401, 401, 429);
    assertThat(misses)
        .as("the failure's own answer; 'misses' gave its permits back")
        .containsOnly(404);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).isEqualTo("ok");
    assertThat(broken.refundsAsked()).isEqualTo(7);
  }

  /**
   * A streamed answer whose writing fails before anything was sent, with an exception a mapper
   * answers 401, is settled with that 401, not with the 200 it had when the response filters first
   * ran: the third wrong token is refused. Good downloads, GET and HEAD, give their permits back.
   * Before, the permit was given back at 200 and every wrong token got 401.
   */
  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void streamedAnswerFailsBeforeCommit_settledWithTheMappedStatus(
      JaxrsServers.Implementation runtime) {
    start(
        runtime,
        RateLimitFilter.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .rule(rule("downloads", "/download", "2/1h", "400-499"))
            .build());

    List<Integer> good = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      good.add(get("/download", "X-Token", "t"));
      good.add(Http.send("HEAD", server.uri("/download"), "X-Token", "t").statusCode());
    }
    List<Integer> wrong = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      wrong.add(get("/download", "X-Token", "guess-" + i));
    }

    assertThat(good).as("good downloads").containsOnly(200);
    assertThat(wrong).as("wrong tokens").containsExactly(401, 401, 429);
    assertThat(get("/download", "X-Token", "t")).as("the window is full").isEqualTo(429);
  }

  /**
   * A request that a filter before this one ended, counted on its response, is counted once even
   * when the runtime runs the response filters a second time: its answer's entity failed before the
   * answer was committed, and a mapper answered 401 in its place. Before, the filter counted it on
   * each run: the second request was refused.
   */
  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void endedByAnEarlierFilter_answerRewrittenAfterAFailedWrite_countedOnce(
      JaxrsServers.Implementation runtime) {
    start(
        runtime,
        RateLimitFilter.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .rule(HttpRule.builder("gate").path("/gate").limit(Limit.parse("2/1h")).build())
            .build());

    assertThat(List.of(get("/gate"), get("/gate"), get("/gate"))).containsExactly(401, 401, 429);
  }

  /**
   * A writer interceptor of the application's, inside the filter's, that fails an answer after its
   * entity was written: the runtime answers the mapper's 401 in its place. The request is counted
   * once, and settled by the status the client receives: the third wrong token is refused.
   */
  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void applicationWriterInterceptorFailsAfterTheEntityWasWritten_settledWithTheAnswerGiven(
      JaxrsServers.Implementation runtime) {
    start(
        runtime,
        RateLimitFilter.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .rule(rule("signed", "/signed", "2/1h", "400-499"))
            .build());

    List<Integer> good = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      good.add(get("/signed?token=t"));
    }
    List<Integer> wrong = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      wrong.add(get("/signed?token=guess-" + i));
    }

    assertThat(good).as("good tokens, given back").containsExactly(200, 200, 200);
    assertThat(wrong).as("wrong tokens").containsExactly(401, 401, 429);
  }

  /**
   * A streamed answer that fails after its 200 was committed is never settled (its final status is
   * no answer the server could give), and stays counted, as a request whose client went away.
   * Before, it was settled at 200 when the response filters ran, and given back.
   */
  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void streamedAnswerFailsAfterCommit_staysCounted(JaxrsServers.Implementation runtime) {
    start(
        runtime,
        RateLimitFilter.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .rule(rule("streams", "/broken", "1/1h", "500-599"))
            .build());
    try {
      get("/broken"); // a cut answer, or a 200 whose body ends early
    } catch (UncheckedIOException cut) {
      // the connection was closed under the client: as expected
    }

    assertThat(get("/broken")).isEqualTo(429);
  }

  /**
   * Asynchronous answers are counted once and settled with their final status: resumed with a value
   * (200, given back), with an exception (401), cancelled (503), timed out (503), a completion
   * stage completed with a value or an exception.
   */
  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void asynchronousAnswers_countedOnce_settledWithTheFinalStatus(
      JaxrsServers.Implementation runtime) {
    start(
        runtime,
        RateLimitFilter.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .rule(rule("later", "/later", "3/1h", "400-599"))
            .rule(rule("staged", "/staged", "1/1h", "400-599"))
            .build());

    List<Integer> resumed = new ArrayList<>();
    for (String how : List.of("ok", "ok", "ok", "fail", "cancel", "timeout", "ok")) {
      resumed.add(get("/later?how=" + how));
    }
    List<Integer> staged = new ArrayList<>();
    for (String how : List.of("ok", "ok", "fail", "ok")) {
      staged.add(get("/staged?how=" + how));
    }

    assertThat(resumed).containsExactly(200, 200, 200, 401, 503, 503, 429);
    assertThat(staged).containsExactly(200, 200, 401, 429);
  }

  /**
   * Registers a filter as a request and a response filter only, never as a {@link Feature}, so that
   * the runtime does not call its {@code configure}: as {@code register(filter,
   * ContainerRequestFilter.class, ContainerResponseFilter.class)} does, or a runtime that does not
   * configure features that are also providers.
   */
  public static class ContractsOnly implements Feature {
    private final RateLimitFilter filter;

    ContractsOnly(RateLimitFilter filter) {
      this.filter = filter;
    }

    @Override
    public boolean configure(FeatureContext context) {
      context.register(filter, ContainerRequestFilter.class, ContainerResponseFilter.class);
      return true;
    }
  }

  /**
   * A filter registered without its {@code Feature} side has no writer interceptor to settle an
   * answer with an entity once written: it settles it in its response filter, at once. A rule
   * counting only 4xx gives the permit of each 200 back, so requests beyond the limit still get
   * 200. Before, the reservation of every answer with an entity stayed pending, never settled, and
   * counted: the second request was refused.
   */
  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void registeredWithoutItsFeature_answersWithAnEntitySettledInTheResponseFilter(
      JaxrsServers.Implementation runtime) {
    RateLimitFilter filter =
        RateLimitFilter.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .rule(rule("ok", "/ok", "1/1h", "400-499"))
            .build();
    server = JaxrsServers.start(runtime, List.of(desk, new ContractsOnly(filter)));

    List<Integer> answers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      answers.add(get("/ok"));
    }

    assertThat(answers).as("200s, given back").containsExactly(200, 200, 200);
  }

  /**
   * One filter instance in two applications, the first configuring it as a {@code Feature}, the
   * second registering it with explicit contracts only: the second settles its 200s at once, so
   * requests beyond the limit still get 200 there, while the first still counts its wrong tokens at
   * the status a failed write is answered with. A mark per filter instance deferred in both: the
   * second application's 200s were never given back.
   */
  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void oneFilterInTwoApplications_onlyTheConfiguredOneDefers(JaxrsServers.Implementation runtime) {
    RateLimitFilter filter =
        RateLimitFilter.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .rule(rule("ok", "/ok", "1/1h", "400-499"))
            .rule(rule("downloads", "/download", "2/1h", "400-499"))
            .build();
    try (JaxrsServers.Running configured = JaxrsServers.start(runtime, List.of(desk, filter))) {
      server = JaxrsServers.start(runtime, List.of(desk, new ContractsOnly(filter)));

      List<Integer> answers = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        answers.add(get("/ok"));
      }
      List<Integer> wrong = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        wrong.add(Http.get(configured.uri("/download"), "X-Token", "guess-" + i).statusCode());
      }

      assertThat(answers).as("200s, given back").containsExactly(200, 200, 200);
      assertThat(wrong).as("wrong tokens, settled on writing").containsExactly(401, 401, 429);
    }
  }
}
