package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One enforcer run twice on one request, in a real Tomcat with a real HTTP client: two filters over
 * it, or the filter and the application calling {@link RateLimitEnforcer#enforce} itself. Each rule
 * counts the request once, whatever path the request had at each pass; a rule of 3 per minute lets
 * exactly 3 requests through. A forward dispatch is still counted on its own.
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

  private RateLimitEnforcer enforcer(HttpRule... rules) {
    RateLimitEnforcer.Builder builder =
        RateLimitEnforcer.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1000))
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
   * forwards {@code /forward/x} to {@code /items/x}, and answers with the path it got.
   */
  private EmbeddedTomcat serve(
      RateLimitEnforcer enforcer,
      boolean twice,
      boolean servletEnforces,
      DispatcherType... dispatches)
      throws Exception {
    return serve(enforcer, twice, servletEnforces ? enforcer : null, dispatches);
  }

  /** As above, the servlet enforcing with {@code servletEnforcer} if not null. */
  private EmbeddedTomcat serve(
      RateLimitEnforcer enforcer,
      boolean twice,
      RateLimitEnforcer servletEnforcer,
      DispatcherType... dispatches)
      throws Exception {
    RateLimitFilter rateLimit = new RateLimitFilter(enforcer);
    Filter filters =
        (request, response, chain) ->
            rateLimit.doFilter(
                request,
                response,
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
            if (req.getRequestURI().startsWith("/forward/")) {
              req.getRequestDispatcher("/items/" + req.getRequestURI().substring(9))
                  .forward(req, resp);
              return;
            }
            resp.setContentType("text/plain");
            resp.getWriter().write(req.getRequestURI());
          }
        };
    return new EmbeddedTomcat(filters, servlet, false, "", baseDir, dispatches);
  }

  /** How many of {@code times} requests were let through. */
  private static int granted(EmbeddedTomcat server, int times, String path, String... headers) {
    int granted = 0;
    for (int i = 0; i < times; i++) {
      int status = server.get(path, headers).statusCode();
      assertThat(status).isIn(200, 429);
      granted += status == 200 ? 1 : 0;
    }
    return granted;
  }

  @Test
  void enforce_sameEnforcerInTwoFilters_countsEachRequestOnce() throws Exception {
    try (EmbeddedTomcat server = serve(enforcer(EVERY), true, false)) {
      assertThat(granted(server, 5, "/items/1"))
          .as("a rule of 3 per minute grants 3 requests")
          .isEqualTo(3);
    }
  }

  @Test
  void enforce_calledByTheApplicationBesidesTheFilter_countsEachRequestOnce() throws Exception {
    try (EmbeddedTomcat server = serve(enforcer(EVERY), false, true)) {
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
  @Test
  void enforce_anotherEnforcerBesidesTheFilter_countsEachRequestOnceByItsOwnRules()
      throws Exception {
    HttpRule wide =
        HttpRule.builder("wide").limit(Limit.exact(100, Duration.ofSeconds(60))).build();
    try (EmbeddedTomcat server = serve(enforcer(wide), false, enforcer(EVERY))) {
      assertThat(granted(server, 5, "/items/1"))
          .as("the second enforcer's rule of 3 per minute grants 3 requests")
          .isEqualTo(3);
    }
  }

  @Test
  void enforce_pathRewrittenBetweenTwoPasses_countsTheNewPathsRuleOnceAndTheOldOneNotAgain()
      throws Exception {
    try (EmbeddedTomcat server = serve(enforcer(EVERY, NEW), true, false)) {
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

  @Test
  void enforce_pathRewrittenBetweenTwoPassesToAnOddSpelling_isCountedNotRefused() throws Exception {
    // The client's path passed the firewall at the first pass; the application's own rewrite is
    // not judged by it, as in a recheck.
    try (EmbeddedTomcat server = serve(enforcer(EVERY, NEW), true, false)) {
      HttpResponse<String> first = server.get("/old/1", "X-Rewrite-To", "//new/1");
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.headers().firstValue("RateLimit"))
          .hasValue("\"every\";r=2;t=60, \"new\";r=2;t=60");
    }
  }

  @Test
  void recheck_pathRewrittenBetweenAndAfterTwoPasses_countsEachRuleOnce() throws Exception {
    try (EmbeddedTomcat server = serve(enforcer(EVERY, NEW, LAST), true, false)) {
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

  @Test
  void enforce_forwardDispatchTheFilterIsRegisteredFor_isCountedOnItsOwn() throws Exception {
    try (EmbeddedTomcat server =
        serve(enforcer(EVERY), false, false, DispatcherType.REQUEST, DispatcherType.FORWARD)) {
      HttpResponse<String> first = server.get("/forward/1");
      assertThat(first.body()).isEqualTo("/items/1");
      assertThat(first.headers().firstValue("RateLimit"))
          .as("counted by the request dispatch, then by the forward")
          .hasValue("\"every\";r=2;t=60, \"every\";r=1;t=60");
      assertThat(server.get("/forward/1").statusCode()).isEqualTo(429);
      assertThat(server.get("/items/1").statusCode()).isEqualTo(429);
    }
  }
}
