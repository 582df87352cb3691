package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.StatusRanges;
import io.slidingwindow.servlet.Deployment.Container;
import io.slidingwindow.testkit.FakeTicker;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Ways a client might take a limited handler past its rule, each on a real Tomcat, Jetty and
 * Undertow: a servlet mapped at a prefix under a context path, the case of the path, an
 * asynchronous request that times out, the error page that a filter before the rate limit filter
 * sends a request to, and a handler that fails after an include under a rule counting failures. The
 * measure is how often the limited handler runs, never more than its rule allows.
 */
class WalkAroundTest {

  @TempDir Path baseDir;

  private final FakeTicker ticker = new FakeTicker();

  /** Runs of the limited handler, by the {@code X-Key} header of the request. */
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

  /** A rule of one request a minute over {@code path}. */
  private static HttpRule once(String name, String path) {
    return HttpRule.builder(name).path(path).limit(Limit.exact(1, Duration.ofSeconds(60))).build();
  }

  private RateLimitFilter filter(HttpRule rule, PathFirewall firewall) {
    return new RateLimitFilter(
        RateLimitEnforcer.builder()
            .pathFirewall(firewall)
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1000))
            .rule(rule)
            .build());
  }

  private RateLimitFilter filter(HttpRule rule) {
    return filter(rule, PathFirewall.strict());
  }

  /**
   * A rate limit filter of its own for each {@code X-Key}, so that every spelling a test sends
   * meets fresh rules on one server.
   */
  private Filter filterPerKey(HttpRule rule, PathFirewall firewall) {
    Map<String, RateLimitFilter> filters = new ConcurrentHashMap<>();
    return (request, response, chain) ->
        filters
            .computeIfAbsent(
                ((HttpServletRequest) request).getHeader("X-Key"), key -> filter(rule, firewall))
            .doFilter(request, response, chain);
  }

  private void ran(HttpServletRequest request) {
    runs.computeIfAbsent(request.getHeader("X-Key"), key -> new AtomicInteger()).incrementAndGet();
  }

  private int runsOf(String key) {
    AtomicInteger count = runs.get(key);
    return count == null ? 0 : count.get();
  }

  /** The statuses of {@code times} GETs of {@code path} with {@code X-Key: key}. */
  private static List<Integer> statuses(ServletServer server, int times, String path, String key) {
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < times; i++) {
      statuses.add(server.get(path, "X-Key", key).statusCode());
    }
    return statuses;
  }

  static Stream<Arguments> containersAndFirewalls() {
    return Stream.of(Container.values())
        .flatMap(c -> Stream.of(Arguments.of(c, "strict"), Arguments.of(c, "off")));
  }

  /**
   * A servlet at {@code /api/*} of the context {@code /app}, the rule over {@code /api/items/**}:
   * the rule matches the path within the context (servlet path and path info together), however the
   * client splits it between the two or spells the context path. Each spelling runs the handler at
   * most once under a rule of one a minute, with the firewall strict (most are answered 400) or off
   * (each is counted by the rule).
   */
  @ParameterizedTest(name = "{0}, firewall {1}")
  @MethodSource("containersAndFirewalls")
  void prefixMappedServletUnderAContextPath_anySpelling_runsTheHandlerOnceAMinute(
      Container container, String firewall) throws Exception {
    HttpServlet servlet =
        new HttpServlet() {
          @Override
          protected void service(HttpServletRequest req, HttpServletResponse resp) {
            String pathInfo = req.getPathInfo();
            if ((req.getServletPath() + (pathInfo == null ? "" : pathInfo))
                .startsWith("/api/items/")) {
              ran(req);
            }
          }
        };
    Filter rateLimit =
        filterPerKey(
            once("items", "/api/items/**"),
            firewall.equals("strict") ? PathFirewall.strict() : PathFirewall.off());
    List<String> spellings =
        List.of(
            "/app/api/items/1",
            "/app/api/items/1/",
            "/app/api;x=1/items/1",
            "/app/api;/items/1",
            "/app/api/items;x=1/1",
            "/app;x=1/api/items/1",
            "/app/%61pi/items/1",
            "/app/api/%69tems/1",
            "/%61pp/api/items/1",
            "/app/api%2Fitems/1",
            "/app/api//items/1",
            "/app//api/items/1",
            "/app/api/./items/1",
            "/app/api/%2e/items/1",
            "/app/./api/items/1",
            "/app/api/x/../items/1",
            "/app/x/../api/items/1",
            "/app/api/items/%2e%2e/items/1",
            "/app/api/items/..;/items/1",
            "/app/api/items/1%3Fx",
            "/app/api/items/1%23x");
    try (ServletServer server =
        container.start(Deployment.of(rateLimit, servlet).at("/app", "/api/*"), baseDir)) {
      for (String spelling : spellings) {
        List<Integer> statuses = statuses(server, 3, spelling, spelling);
        assertThat(runsOf(spelling))
            .as("%s ran the handler under /api/items (answers %s)", spelling, statuses)
            .isLessThanOrEqualTo(1);
      }
    }
  }

  /**
   * A servlet at {@code /admin/*} of the context {@code /app} under a rule over {@code /admin/**}:
   * none of the three containers maps a path of another case to it (nor to the context), so that a
   * case-sensitive rule covers every request its handler gets.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void pathOfAnotherCase_reachesNoServletMappedAtTheRulesPrefix(Container container)
      throws Exception {
    HttpServlet servlet =
        new HttpServlet() {
          @Override
          protected void service(HttpServletRequest req, HttpServletResponse resp) {
            ran(req);
          }
        };
    try (ServletServer server =
        container.start(
            Deployment.of(filter(once("admin", "/admin/**")), servlet).at("/app", "/admin/*"),
            baseDir)) {
      for (String spelling : List.of("/app/ADMIN/x", "/app/Admin/x", "/APP/admin/x")) {
        assertThat(statuses(server, 2, spelling, spelling)).containsOnly(404);
        assertThat(runsOf(spelling)).as(spelling).isZero();
      }
      assertThat(statuses(server, 2, "/app/admin/x", "admin")).containsExactly(200, 429);
      assertThat(runsOf("admin")).isEqualTo(1);
    }
  }

  static Stream<Arguments> timeouts() {
    List<Arguments> cases = new ArrayList<>();
    for (Container container : Container.values()) {
      for (boolean errorPage : new boolean[] {false, true}) {
        for (boolean filterForErrors : new boolean[] {false, true}) {
          cases.add(Arguments.of(container, errorPage, filterForErrors));
        }
      }
    }
    return cases.stream();
  }

  /**
   * A handler that starts asynchronous processing and never completes it: the container times the
   * request out (500, and the error page for 500 under the rule's own paths, if there is one). A
   * rule that counts failed answers ({@code 400-599}) keeps the timed-out request's permit, and
   * counts the error dispatch that follows as the same request, once: one request a minute runs the
   * handler once of three, with the filter registered for error dispatches or not.
   */
  @ParameterizedTest(name = "{0}, error page: {1}, filter for error dispatches: {2}")
  @MethodSource("timeouts")
  void asyncRequestTimingOut_keepsItsPermitAndIsCountedOnce(
      Container container, boolean errorPage, boolean filterForErrors) throws Exception {
    HttpRule failures =
        HttpRule.builder("failures")
            .path("/slow/**")
            .limit(Limit.exact(1, Duration.ofSeconds(60)))
            .countStatuses(StatusRanges.parse("400-599"))
            .build();
    AtomicInteger errorPages = new AtomicInteger();
    HttpServlet servlet =
        new HttpServlet() {
          @Override
          protected void service(HttpServletRequest req, HttpServletResponse resp) {
            if (req.getDispatcherType() == DispatcherType.ERROR) {
              errorPages.incrementAndGet();
              return;
            }
            ran(req);
            AsyncContext async = req.startAsync();
            async.setTimeout(200);
          }
        };
    DispatcherType[] dispatches =
        filterForErrors
            ? new DispatcherType[] {DispatcherType.REQUEST, DispatcherType.ERROR}
            : new DispatcherType[] {DispatcherType.REQUEST};
    Deployment deployment = Deployment.of(filter(failures), servlet, dispatches).withAsync();
    if (errorPage) {
      deployment = deployment.errorPage(500, "/slow/oops");
    }
    try (ServletServer server = container.start(deployment, baseDir)) {
      assertThat(statuses(server, 3, "/slow/1", "slow"))
          .as("timed out, then refused: the timeout's 500 is a failure the rule counts")
          .containsExactly(500, 429, 429);
      assertThat(runsOf("slow")).isEqualTo(1);
      assertThat(errorPages).hasValue(errorPage ? 1 : 0);
    }
  }

  /**
   * A filter before the rate limit filter (authentication) answers {@code sendError(401)}, whose
   * error page is the limited handler itself ({@code /login}, one a minute): with the rate limit
   * filter registered for error dispatches, the error page is counted by the rule over its path, so
   * that requests to any path do not run the handler unlimited. (Registered for request dispatches
   * alone, the filter never sees the error page, which then runs on every such request.)
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void errorPageOfAFilterBeforeTheLimiter_isCountedByTheRuleOverItsPath(Container container)
      throws Exception {
    RateLimitFilter rateLimit = filter(once("login", "/login"));
    Filter authThenLimit =
        (request, response, chain) -> {
          HttpServletRequest http = (HttpServletRequest) request;
          if (http.getDispatcherType() == DispatcherType.REQUEST
              && !http.getRequestURI().equals("/login")
              && http.getHeader("Authorization") == null) {
            ((HttpServletResponse) response).sendError(401);
            return;
          }
          rateLimit.doFilter(request, response, chain);
        };
    HttpServlet servlet =
        new HttpServlet() {
          @Override
          protected void service(HttpServletRequest req, HttpServletResponse resp) {
            if (req.getRequestURI().equals("/login")) {
              ran(req);
            }
          }
        };
    Deployment deployment =
        Deployment.of(authThenLimit, servlet, DispatcherType.REQUEST, DispatcherType.ERROR)
            .errorPage(401, "/login");
    try (ServletServer server = container.start(deployment, baseDir)) {
      assertThat(server.send("POST", "/login", "X-Key", "k").statusCode()).isEqualTo(200);
      for (int i = 0; i < 3; i++) {
        assertThat(server.send("POST", "/private/" + i, "X-Key", "k").statusCode())
            .as("the error page at /login refused")
            .isEqualTo(429);
      }
      assertThat(runsOf("k")).isEqualTo(1);
    }
  }

  /**
   * A handler that starts asynchronous processing and answers 401 in it, by a dispatch or by
   * completing, from the container's thread or another: a rule counting failed answers settles with
   * that 401 (the permit stays), never with the status the response had when the filter's chain
   * returned. One a minute runs the handler once of three.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void asyncAnswerOfAFailure_keepsThePermit(Container container) throws Exception {
    for (String how : List.of("dispatch", "dispatch later", "complete", "complete later")) {
      runs.clear();
      HttpRule failures =
          HttpRule.builder("failures")
              .path("/login/**")
              .limit(Limit.exact(1, Duration.ofSeconds(60)))
              .countStatuses(StatusRanges.parse("400-599"))
              .build();
      HttpServlet servlet =
          new HttpServlet() {
            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp) {
              if (req.getDispatcherType() == DispatcherType.ASYNC) {
                ran(req);
                resp.setStatus(401);
                return;
              }
              AsyncContext async = req.startAsync();
              Runnable fail =
                  () -> {
                    ran(req);
                    ((HttpServletResponse) async.getResponse()).setStatus(401);
                    async.complete();
                  };
              switch (how) {
                case "dispatch" -> async.dispatch("/login/denied");
                case "dispatch later" -> async.start(() -> async.dispatch("/login/denied"));
                case "complete" -> fail.run();
                default -> async.start(fail);
              }
            }
          };
      try (ServletServer server =
          container.start(Deployment.of(filter(failures), servlet).withAsync(), baseDir)) {
        assertThat(statuses(server, 3, "/login/x", "k")).as(how).containsExactly(401, 429, 429);
        assertThat(runsOf("k")).as(how).isEqualTo(1);
      }
    }
  }

  /**
   * A handler that includes a page, which answers 200, and then answers 500 itself, by its status
   * or by an exception, with the filter registered for include dispatches too: a rule counting only
   * 500-599 keeps the permit, settled with the request's final status, never with the 200 the
   * response had when the include's pass of the filter returned. Two a minute run the handler twice
   * of three.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void includeThenFailure_keepsThePermit(Container container) throws Exception {
    for (String how : List.of("status", "exception")) {
      runs.clear();
      HttpRule failures =
          HttpRule.builder("failures")
              .path("/page/**")
              .limit(Limit.exact(2, Duration.ofSeconds(60)))
              .countStatuses(StatusRanges.parse("500-599"))
              .build();
      HttpServlet servlet =
          new HttpServlet() {
            @Override
            protected void service(HttpServletRequest req, HttpServletResponse resp)
                throws ServletException, IOException {
              if (req.getDispatcherType() == DispatcherType.INCLUDE) {
                resp.getWriter().write("part"); // no flush: the status may still change
                return;
              }
              ran(req);
              req.getRequestDispatcher("/page/part").include(req, resp);
              if (how.equals("status")) {
                resp.setStatus(500);
              } else {
                throw new IllegalStateException("failed after the include");
              }
            }
          };
      Deployment deployment =
          Deployment.of(filter(failures), servlet, DispatcherType.REQUEST, DispatcherType.INCLUDE);
      try (ServletServer server = container.start(deployment, baseDir)) {
        assertThat(statuses(server, 3, "/page/x", "k")).as(how).containsExactly(500, 500, 429);
        assertThat(runsOf("k")).as(how).isEqualTo(2);
      }
    }
  }

  /**
   * A handler that writes and flushes its 200 and then fails, as a write does once the client hung
   * up in the middle of the download: the client was served, so a rule counting successful answers
   * ({@code 200-299}) keeps the permit, settled with the status sent, never as a 500. One a minute
   * runs the handler once of two.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void failureAfterTheAnswerWasCommitted_keepsThePermitOfASuccess(Container container)
      throws Exception {
    HttpRule successes =
        HttpRule.builder("successes")
            .path("/download/**")
            .limit(Limit.exact(1, Duration.ofSeconds(60)))
            .countStatuses(StatusRanges.parse("200-299"))
            .build();
    HttpServlet servlet =
        new HttpServlet() {
          @Override
          protected void service(HttpServletRequest req, HttpServletResponse resp)
              throws IOException {
            ran(req);
            resp.setContentLength(4);
            resp.getWriter().write("file");
            resp.flushBuffer();
            throw new IOException("the client went away");
          }
        };
    try (ServletServer server =
        container.start(Deployment.of(filter(successes), servlet), baseDir)) {
      assertThat(server.get("/download/x", "X-Key", "k").statusCode()).isEqualTo(200);
      assertThat(server.get("/download/x", "X-Key", "k").statusCode())
          .as("the committed 200 was counted, not given back as a 500")
          .isEqualTo(429);
      assertThat(runsOf("k")).isEqualTo(1);
    }
  }
}
