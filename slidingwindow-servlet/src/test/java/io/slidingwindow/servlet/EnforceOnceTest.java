package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.servlet.Deployment.Container;
import io.slidingwindow.testkit.FakeTicker;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import jakarta.servlet.http.HttpServletResponseWrapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * One enforcer run twice on one request, in a real Tomcat, Jetty and Undertow (each test on each,
 * configured as a deployment would be: asynchronous support, error pages) with a real HTTP client:
 * two filters over it, or the filter and the application calling {@link RateLimitEnforcer#enforce}
 * itself. Each rule counts the request once, whatever path the request had at each pass; a rule of
 * 3 per minute lets exactly 3 requests through. A forward, include, async or error dispatch that
 * the filter is registered for is part of its request: a rule counts the client's request once over
 * all its dispatches.
 */
class EnforceOnceTest {

  @TempDir Path baseDir;

  private final FakeTicker ticker = new FakeTicker();

  private static HttpRule rule(String name, String... paths) {
    HttpRule.Builder rule = HttpRule.builder(name).limit(Limit.exact(3, Duration.ofSeconds(60)));
    for (String path : paths) {
      rule.path(path);
    }
    return rule.build();
  }

  private static final HttpRule EVERY = rule("every");

  private static final HttpRule NEW = rule("new", "/new/**");

  private static final HttpRule LAST = rule("last", "/last/**");

  private static final HttpRule ITEMS = rule("items", "/items/**");

  private final AtomicInteger refusals = new AtomicInteger();

  private RateLimitEnforcer enforcer(HttpRule... rules) {
    return enforcer(RateLimiterFactory.inMemory(ticker, 1000), rules);
  }

  private RateLimitEnforcer enforcer(RateLimiterFactory limiters, HttpRule... rules) {
    RateLimitEnforcer.Builder builder =
        RateLimitEnforcer.builder()
            .limiterFactory(limiters)
            .listener(
                new RateLimitListener() {
                  @Override
                  public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
                    refusals.incrementAndGet();
                  }
                })
            .rateLimitHeaders(true);
    for (HttpRule rule : rules) {
      builder.rule(rule);
    }
    return builder.build();
  }

  /** The request as the header {@code header} (if sent) rewrites its path. */
  private static ServletRequest rewritten(ServletRequest request, String header) {
    HttpServletRequest http = (HttpServletRequest) request;
    String path = http.getHeader(header);
    return path == null
        ? request
        : new HttpServletRequestWrapper(http) {
          @Override
          public String getRequestURI() {
            return path;
          }

          @Override
          public String getServletPath() {
            return path;
          }

          @Override
          public String getPathInfo() {
            return null;
          }
        };
  }

  /**
   * The filter of {@code enforcer}, twice if {@code twice} with the path rewritten by {@code
   * X-Rewrite-To} between the two, then rewritten by {@code X-Then-To}, before a servlet that
   * rechecks (as the Spring MVC interceptor does), enforces once more if {@code servletEnforces},
   * forwards {@code /forward/x} to {@code /items/x}, dispatches {@code /async/x} asynchronously to
   * {@code /items/x}, answers {@code /fail/x} with {@code sendError(429)} (whose error page is
   * {@code /oops}), includes {@code /items/x} in {@code /include/x} and then forwards that to
   * {@code /fail/x}, answers an include with {@code included}, and answers with the path it got.
   */
  private ServletServer serve(
      Container container,
      RateLimitEnforcer enforcer,
      boolean twice,
      boolean servletEnforces,
      DispatcherType... dispatches)
      throws Exception {
    return serve(container, enforcer, twice, servletEnforces ? enforcer : null, dispatches);
  }

  /** As above, the servlet enforcing with {@code servletEnforcer} if not null. */
  private ServletServer serve(
      Container container,
      RateLimitEnforcer enforcer,
      boolean twice,
      RateLimitEnforcer servletEnforcer,
      DispatcherType... dispatches)
      throws Exception {
    return serve(container, new RateLimitFilter(enforcer), twice, servletEnforcer, dispatches);
  }

  /** As above, with the filter {@code rateLimit}. */
  private ServletServer serve(
      Container container,
      RateLimitFilter rateLimit,
      boolean twice,
      RateLimitEnforcer servletEnforcer,
      DispatcherType... dispatches)
      throws Exception {
    Filter filters =
        (request, response, chain) ->
            rateLimit.doFilter(
                request,
                refusalAsError(request, response),
                (first, answer) -> {
                  ServletRequest between = rewritten(first, "X-Rewrite-To");
                  if (twice) {
                    rateLimit.doFilter(
                        between,
                        answer,
                        (second, end) -> chain.doFilter(rewritten(second, "X-Then-To"), end));
                  } else {
                    chain.doFilter(rewritten(between, "X-Then-To"), answer);
                  }
                });
    HttpServlet servlet =
        new HttpServlet() {
          @Override
          protected void service(HttpServletRequest req, HttpServletResponse resp)
              throws IOException, ServletException {
            if (!RateLimitEnforcer.recheck(req, resp)
                || (servletEnforcer != null && !servletEnforcer.enforce(req, resp))) {
              return;
            }
            if (req.getDispatcherType() == DispatcherType.INCLUDE) {
              resp.getWriter().write("included");
              return;
            }
            String uri = req.getRequestURI();
            if (uri.startsWith("/forward/")) {
              req.getRequestDispatcher("/items/" + uri.substring(9)).forward(req, resp);
              return;
            }
            if (uri.startsWith("/async/")) {
              req.startAsync().dispatch("/items/" + uri.substring(7));
              return;
            }
            if (uri.startsWith("/include/")) {
              req.getRequestDispatcher("/items/" + uri.substring(9)).include(req, resp);
              req.getRequestDispatcher("/fail/" + uri.substring(9)).forward(req, resp);
              return;
            }
            if (uri.startsWith("/fail/")) {
              resp.sendError(429);
              return;
            }
            resp.setContentType("text/plain");
            resp.getWriter().write(uri.equals("/oops") ? "oops" : uri);
          }
        };
    return container.start(
        Deployment.of(filters, servlet, dispatches).withAsync().errorPage(429, "/oops"), baseDir);
  }

  /**
   * The response, on which a request dispatch that sends {@code X-Refusal-As-Error} turns the
   * status 429 into {@code sendError(429)}, so that the container shows the 429's error page.
   */
  private static ServletResponse refusalAsError(ServletRequest request, ServletResponse response) {
    HttpServletRequest http = (HttpServletRequest) request;
    if (http.getHeader("X-Refusal-As-Error") == null
        || http.getDispatcherType() != DispatcherType.REQUEST) {
      return response;
    }
    return new HttpServletResponseWrapper((HttpServletResponse) response) {
      private boolean sent;

      @Override
      public void setStatus(int status) {
        if (status != 429) {
          super.setStatus(status);
          return;
        }
        try {
          sendError(status);
          sent = true;
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }

      @Override
      public ServletOutputStream getOutputStream() throws IOException {
        return sent ? DISCARDED : super.getOutputStream(); // the error page writes the answer
      }
    };
  }

  /** Where the refusal's own body goes once it was turned into {@code sendError}. */
  private static final ServletOutputStream DISCARDED =
      new ServletOutputStream() {
        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {}

        @Override
        public void write(int b) {}
      };

  /** How many of {@code times} requests were let through. */
  private static int granted(ServletServer server, int times, String path, String... headers) {
    int granted = 0;
    for (int i = 0; i < times; i++) {
      int status = server.get(path, headers).statusCode();
      assertThat(status).isIn(200, 429);
      granted += status == 200 ? 1 : 0;
    }
    return granted;
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_sameEnforcerInTwoFilters_countsEachRequestOnce(Container container)
      throws Exception {
    try (ServletServer server = serve(container, enforcer(EVERY), true, false)) {
      assertThat(granted(server, 5, "/items/1"))
          .as("a rule of 3 per minute grants 3 requests")
          .isEqualTo(3);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_calledByTheApplicationBesidesTheFilter_countsEachRequestOnce(Container container)
      throws Exception {
    try (ServletServer server = serve(container, enforcer(EVERY), false, true)) {
      assertThat(granted(server, 5, "/items/1"))
          .as("a rule of 3 per minute grants 3 requests")
          .isEqualTo(3);
    }
  }

  /**
   * Two enforcers in one dispatch, each with its own rules: the second does not take the rules the
   * first applied for its own (a rule is known by its place in its enforcer), and counts the
   * request once by its rule.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_anotherEnforcerBesidesTheFilter_countsEachRequestOnceByItsOwnRules(
      Container container) throws Exception {
    HttpRule wide =
        HttpRule.builder("wide").limit(Limit.exact(100, Duration.ofSeconds(60))).build();
    try (ServletServer server = serve(container, enforcer(wide), false, enforcer(EVERY))) {
      assertThat(granted(server, 5, "/items/1"))
          .as("the second enforcer's rule of 3 per minute grants 3 requests")
          .isEqualTo(3);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_pathRewrittenBetweenTwoPasses_countsTheNewPathsRuleOnceAndTheOldOneNotAgain(
      Container container) throws Exception {
    try (ServletServer server = serve(container, enforcer(EVERY, NEW), true, false)) {
      HttpResponse<String> first = server.get("/old/1", "X-Rewrite-To", "/new/1");
      assertThat(first.body()).isEqualTo("/new/1");
      assertThat(1 + granted(server, 4, "/old/1", "X-Rewrite-To", "/new/1"))
          .as("rules of 3 per minute grant 3 requests")
          .isEqualTo(3);
      assertThat(first.headers().firstValue("RateLimit"))
          .as("each rule counted the first request once")
          .hasValue("\"every\";r=2;t=60, \"new\";r=2;t=60");
      assertThat(server.get("/new/1").statusCode())
          .as("the rule of the new path is spent too")
          .isEqualTo(429);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_pathRewrittenBetweenTwoPassesToAnOddSpelling_isCountedNotRefused(Container container)
      throws Exception {
    // The client's path passed the firewall at the first pass; the application's own rewrite is
    // not judged by it, as in a recheck.
    try (ServletServer server = serve(container, enforcer(EVERY, NEW), true, false)) {
      HttpResponse<String> first = server.get("/old/1", "X-Rewrite-To", "//new/1");
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.headers().firstValue("RateLimit"))
          .hasValue("\"every\";r=2;t=60, \"new\";r=2;t=60");
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void recheck_pathRewrittenBetweenAndAfterTwoPasses_countsEachRuleOnce(Container container)
      throws Exception {
    try (ServletServer server = serve(container, enforcer(EVERY, NEW, LAST), true, false)) {
      String[] rewrites = {"X-Rewrite-To", "/new/1", "X-Then-To", "/last/1"};
      HttpResponse<String> first = server.get("/old/1", rewrites);
      assertThat(first.body()).isEqualTo("/last/1");
      assertThat(1 + granted(server, 4, "/old/1", rewrites))
          .as("rules of 3 per minute grant 3 requests")
          .isEqualTo(3);
      assertThat(first.headers().firstValue("RateLimit"))
          .as("each rule counted the first request once")
          .hasValue("\"every\";r=2;t=60, \"new\";r=2;t=60, \"last\";r=2;t=60");
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_forwardDispatchTheFilterIsRegisteredFor_countsTheRequestOnceByEachRule(
      Container container) throws Exception {
    try (ServletServer server =
        serve(
            container,
            enforcer(EVERY, ITEMS),
            false,
            false,
            DispatcherType.REQUEST,
            DispatcherType.FORWARD)) {
      HttpResponse<String> first = server.get("/forward/1");
      assertThat(first.body()).isEqualTo("/items/1");
      assertThat(first.headers().firstValue("RateLimit"))
          .as("the rule of every path counted the request once, that of the forward's path too")
          .hasValue("\"every\";r=2;t=60, \"items\";r=2;t=60");
      assertThat(1 + granted(server, 4, "/forward/1"))
          .as("rules of 3 per minute grant 3 requests")
          .isEqualTo(3);
      assertThat(server.get("/items/1").statusCode()).isEqualTo(429);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_sameEnforcerInTwoFiltersForForwardsOnly_countsEachForwardedRequestOnce(
      Container container) throws Exception {
    try (ServletServer server =
        serve(container, enforcer(EVERY), true, false, DispatcherType.FORWARD)) {
      assertThat(granted(server, 5, "/forward/1"))
          .as("a rule of 3 per minute grants 3 requests")
          .isEqualTo(3);
      assertThat(server.get("/items/1").statusCode())
          .as("a request dispatch is not looked at by filters for forwards only")
          .isEqualTo(200);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_sameEnforcerInTwoFiltersForRequestsAndForwards_countsEachRequestOnce(
      Container container) throws Exception {
    try (ServletServer server =
        serve(
            container,
            enforcer(EVERY),
            true,
            false,
            DispatcherType.REQUEST,
            DispatcherType.FORWARD)) {
      assertThat(granted(server, 5, "/forward/1"))
          .as("a rule of 3 per minute grants 3 requests")
          .isEqualTo(3);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_asyncDispatchTheFilterIsRegisteredFor_countsTheRequestOnceByEachRule(
      Container container) throws Exception {
    try (ServletServer server =
        serve(
            container,
            enforcer(EVERY, ITEMS),
            false,
            false,
            DispatcherType.REQUEST,
            DispatcherType.ASYNC)) {
      HttpResponse<String> first = server.get("/async/1");
      assertThat(first.body()).isEqualTo("/items/1");
      assertThat(1 + granted(server, 4, "/async/1"))
          .as("rules of 3 per minute grant 3 requests")
          .isEqualTo(3);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_errorDispatchTheFilterIsRegisteredFor_isNotCountedAgain(Container container)
      throws Exception {
    try (ServletServer server =
        serve(
            container,
            enforcer(EVERY),
            false,
            false,
            DispatcherType.REQUEST,
            DispatcherType.ERROR)) {
      HttpResponse<String> failed = server.get("/fail/1");
      assertThat(failed.statusCode()).isEqualTo(429);
      assertThat(failed.body()).as("the application's 429 has its error page").isEqualTo("oops");
      assertThat(granted(server, 5, "/items/1"))
          .as("the failed request, its error page included, took one of 3 permits")
          .isEqualTo(2);
      HttpResponse<String> refused = server.get("/items/1");
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("Content-Type"))
          .as("the filter's own refusal is written, not sent to the error page")
          .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_refusalShownOnAnErrorPageTheFilterIsRegisteredFor_isNotCountedAgain(
      Container container) throws Exception {
    try (ServletServer server =
        serve(
            container,
            enforcer(EVERY),
            false,
            false,
            DispatcherType.REQUEST,
            DispatcherType.ERROR)) {
      assertThat(granted(server, 3, "/items/1")).isEqualTo(3);
      HttpResponse<String> refused = server.get("/items/1", "X-Refusal-As-Error", "yes");
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.body())
          .as("the error page's dispatch is let through, not refused once more")
          .isEqualTo("oops");
      assertThat(refusals).as("one refusal for one refused request").hasValue(1);
    }
  }

  /**
   * A refusal shown on an error page that a later rule covers, the error page's own path or every
   * path: the refused request is counted by no rule after the refusing one, neither in its request
   * dispatch (the chain of rules ends) nor in its error page's dispatch.
   */
  @ParameterizedTest(name = "{0}, later rule over {1}")
  @MethodSource("laterRules")
  void enforce_refusalShownOnAnErrorPageThatALaterRuleCovers_isCountedByNoLaterRule(
      Container container, String over) throws Exception {
    HttpRule.Builder later =
        HttpRule.builder("later").limit(Limit.exact(10, Duration.ofSeconds(60)));
    if (over.startsWith("/")) {
      later.path(over);
    }
    int countedBefore = over.startsWith("/") ? 0 : 3; // the 3 granted requests to /items/1
    try (ServletServer server =
        serve(
            container,
            enforcer(ITEMS, later.build()),
            false,
            false,
            DispatcherType.REQUEST,
            DispatcherType.ERROR)) {
      assertThat(granted(server, 3, "/items/1")).isEqualTo(3);
      HttpResponse<String> refused = server.get("/items/1", "X-Refusal-As-Error", "yes");
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.body()).as("the error page is shown, not refused").isEqualTo("oops");
      assertThat(server.get("/oops").headers().firstValue("RateLimit"))
          .as("the later rule counted the refused request's error page by none of its permits")
          .hasValue("\"later\";r=" + (10 - countedBefore - 1) + ";t=60");
      assertThat(refusals).as("one refusal for one refused request").hasValue(1);
    }
  }

  /**
   * A refusal in an include dispatch, whose status the container ignores, does not end the request:
   * its includer goes on (a forward whose handler calls {@code sendError}), and a rule over the
   * rest of the request, its error page here, counts it as usual. The filter runs on includes,
   * forwards and error pages only, so that the include is the first to meet the rule over the
   * includer's path (an include keeps its includer's path).
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_refusedInAnInclude_isCountedByTheRulesOverTheRestOfTheRequest(Container container)
      throws Exception {
    HttpRule included = oncePerMinute("included", "/include/**");
    try (ServletServer server =
        serve(
            container,
            enforcer(included, rule("page", "/oops")),
            false,
            false,
            DispatcherType.INCLUDE,
            DispatcherType.FORWARD,
            DispatcherType.ERROR)) {
      for (int i = 1; i <= 3; i++) {
        assertThat(server.get("/include/1").body())
            .as("request %d goes on to its error page", i)
            .isEqualTo("oops");
      }
      assertThat(refusals).as("the includes of the second and third request refused").hasValue(2);
      HttpResponse<String> fourth = server.get("/include/1");
      assertThat(fourth.statusCode()).isEqualTo(429);
      assertThat(fourth.headers().firstValue("Content-Type").orElse(""))
          .as(
              "the rule of 3 per minute over the error page counted 3 requests, and refuses the 4th")
          .startsWith("application/problem+json");
    }
  }

  /**
   * An application filter before the rate limit filter that starts asynchronous processing, lets
   * the rate limit filter refuse, and then dispatches the request to another path: that dispatch is
   * no error page of the refusal but runs a handler, and the rules over its path count it (and
   * refuse it) as usual. The handler at {@code /other/1}, under a rule of 1 per minute, runs once
   * for three such requests.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void enforce_asyncDispatchAfterARefusal_isCountedByTheRulesOverItsPath(Container container)
      throws Exception {
    HttpRule first = oncePerMinute("first", "/first/**");
    HttpRule other = oncePerMinute("other", "/other/**");
    RateLimitFilter rateLimit = new RateLimitFilter(enforcer(first, other));
    AtomicInteger dispatched = new AtomicInteger();
    Filter dispatching =
        asyncDispatching(
            rateLimit,
            (request, response, chain) -> {
              try {
                rateLimit.doFilter(request, response, chain);
              } finally {
                if (request.getDispatcherType() == DispatcherType.ASYNC) {
                  dispatched.incrementAndGet();
                }
              }
            });
    Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();
    try (ServletServer server =
        asyncServer(
            container,
            dispatching,
            recording(ran, null),
            deployment -> deployment,
            DispatcherType.REQUEST,
            DispatcherType.ASYNC)) {
      assertThat(server.get("/first/1").statusCode()).isEqualTo(200);
      for (int i = 1; i <= 3; i++) {
        assertThat(server.get("/first/1", "X-Async-To", "/other/1").statusCode())
            .as("request %d refused at its first path", i)
            .isEqualTo(429);
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> assertThat(dispatched).as("dispatches to /other/1 done").hasValue(3));
      assertThat(ran.get("/other/1"))
          .as("the rule of 1 per minute over /other let one of three dispatches there run")
          .hasValue(1);
      assertThat(refusals).as("3 refusals at the first path, 2 at the dispatch's").hasValue(5);
    }
  }

  /**
   * After a refusal, an asynchronous dispatch (started by an application filter before the refusal)
   * runs a handler that fails, with {@code sendError(500)} (an error page for the status) or an
   * exception (an error page for its type): the error page shown for that failure is no error page
   * of the refusal, and the rule over the error page's path counts it as usual. The error page at
   * {@code /oops}, under a rule of 1 per minute, runs once for three such requests, whether or not
   * the filter also sees the asynchronous dispatch.
   */
  @ParameterizedTest(name = "{0}, filter for async dispatches: {1}, failing by {2}")
  @MethodSource("asyncFailures")
  void enforce_errorPageOfAFailedAsyncDispatchAfterARefusal_isCountedByTheRuleOverItsPath(
      Container container, boolean filterForAsync, String failure) throws Exception {
    assumeTrue(
        showsAnErrorPageOnceCommitted(container, failure),
        container + " shows no error page for this failure once the refusal was written");
    HttpRule first = oncePerMinute("first", "/first/**");
    HttpRule page = oncePerMinute("page", "/oops");
    RateLimitFilter rateLimit = new RateLimitFilter(enforcer(first, page));
    Filter dispatching = asyncDispatching(rateLimit, rateLimit);
    Map<String, AtomicInteger> ran = new ConcurrentHashMap<>();
    DispatcherType[] dispatches =
        filterForAsync
            ? new DispatcherType[] {
              DispatcherType.REQUEST, DispatcherType.ASYNC, DispatcherType.ERROR
            }
            : new DispatcherType[] {DispatcherType.REQUEST, DispatcherType.ERROR};
    try (ServletServer server =
        asyncServer(
            container,
            dispatching,
            recording(ran, "/boom/"),
            deployment ->
                failure.equals("exception")
                    ? deployment.errorPage(Exception.class, "/oops")
                    : deployment.errorPage(500, "/oops"),
            dispatches)) {
      assertThat(server.get("/first/1").statusCode()).isEqualTo(200);
      for (int i = 1; i <= 3; i++) {
        server.get("/first/1", "X-Async-To", "/boom/1", "X-Fail-By", failure);
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                assertThat(ran.get("/boom/1")).as("dispatches to /boom/1 run").hasValue(3);
                assertThat(ran.get("/oops")).as("an error page ran").isNotNull();
              });
      assertThat(ran.get("/oops"))
          .as("the rule of 1 per minute over /oops let one of three failures' error pages run")
          .hasValue(1);
    }
  }

  /**
   * Whether {@code container} shows an error page for a handler that fails by {@code failure} after
   * the response was committed (the refusal written): Tomcat does for both (a {@code sendError}
   * after the commit throws, and the error page of the status 500 that the exception gets is
   * shown), Undertow for {@code sendError} only, Jetty for neither (the response of a written
   * refusal is complete, and no error page follows it).
   */
  private static boolean showsAnErrorPageOnceCommitted(Container container, String failure) {
    return container == Container.TOMCAT
        || (container == Container.UNDERTOW && failure.equals("sendError(500)"));
  }

  /**
   * A filter over rules that are replaced before every pass (a reload that keeps each rule's
   * limiter, as the Spring Boot starter's does): a forwarded request finishes with the rules it
   * started with, and each rule counts it once.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void filter_rulesReplacedBetweenTheRequestAndItsForward_countsTheRequestOnceByEachRule(
      Container container) throws Exception {
    RateLimiterFactory memory = RateLimiterFactory.inMemory(ticker, 1000);
    Map<String, KeyedRateLimiter<String>> limiters = new ConcurrentHashMap<>();
    RateLimiterFactory keeping =
        (name, limits, countRefused) ->
            limiters.computeIfAbsent(name, n -> memory.create(n, limits, countRefused));
    RateLimitFilter reloading = new RateLimitFilter(() -> enforcer(keeping, EVERY, ITEMS));
    try (ServletServer server =
        serve(container, reloading, false, null, DispatcherType.REQUEST, DispatcherType.FORWARD)) {
      HttpResponse<String> first = server.get("/forward/1");
      assertThat(first.body()).isEqualTo("/items/1");
      assertThat(first.headers().firstValue("RateLimit"))
          .as("each rule counted the request once, under the rules it started with")
          .hasValue("\"every\";r=2;t=60, \"items\";r=2;t=60");
      assertThat(1 + granted(server, 4, "/forward/1"))
          .as("rules of 3 per minute grant 3 requests")
          .isEqualTo(3);
    }
  }

  /** A rule of 1 request a minute over {@code path}. */
  private static HttpRule oncePerMinute(String name, String path) {
    return HttpRule.builder(name).path(path).limit(Limit.exact(1, Duration.ofSeconds(60))).build();
  }

  /**
   * An application filter before {@code rateLimit}: a request with an {@code X-Async-To} header
   * starts asynchronous processing, lets {@code rateLimit} run, then dispatches to that path; every
   * other pass goes to {@code passOn}.
   */
  private static Filter asyncDispatching(RateLimitFilter rateLimit, Filter passOn) {
    return (request, response, chain) -> {
      HttpServletRequest http = (HttpServletRequest) request;
      String to = http.getHeader("X-Async-To");
      if (to == null || http.getDispatcherType() != DispatcherType.REQUEST) {
        passOn.doFilter(request, response, chain);
        return;
      }
      AsyncContext async = request.startAsync();
      rateLimit.doFilter(request, response, chain);
      async.dispatch(to);
    };
  }

  static Stream<Arguments> laterRules() {
    return Stream.of(Container.values())
        .flatMap(
            container -> Stream.of("/oops", "every path").map(o -> Arguments.of(container, o)));
  }

  static Stream<Arguments> asyncFailures() {
    List<Arguments> cases = new ArrayList<>();
    for (Container container : Container.values()) {
      for (boolean filterForAsync : new boolean[] {true, false}) {
        for (String failure : List.of("sendError(500)", "exception")) {
          cases.add(Arguments.of(container, filterForAsync, failure));
        }
      }
    }
    return cases.stream();
  }

  /**
   * A servlet that counts its runs by path in {@code ran}, and fails under {@code failingUnder}
   * (none if null): with {@code sendError(500)}, or with an {@link IllegalStateException} if the
   * request's {@code X-Fail-By} header says {@code exception}.
   */
  private static HttpServlet recording(Map<String, AtomicInteger> ran, String failingUnder) {
    return new HttpServlet() {
      @Override
      protected void service(HttpServletRequest req, HttpServletResponse resp) throws IOException {
        String uri = req.getRequestURI();
        ran.computeIfAbsent(uri, path -> new AtomicInteger()).incrementAndGet();
        if (failingUnder != null && uri.startsWith(failingUnder)) {
          if ("exception".equals(req.getHeader("X-Fail-By"))) {
            throw new IllegalStateException("the handler at " + uri + " fails");
          }
          resp.sendError(500);
        }
      }
    };
  }

  /**
   * A server in {@code container} whose servlet and rate limit filter support asynchronous
   * processing, with what {@code setUp} adds (error pages).
   */
  private ServletServer asyncServer(
      Container container,
      Filter filter,
      HttpServlet servlet,
      UnaryOperator<Deployment> setUp,
      DispatcherType... dispatches)
      throws Exception {
    return container.start(
        setUp.apply(Deployment.of(filter, servlet, dispatches).withAsync()), baseDir);
  }
}
