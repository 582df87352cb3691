package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.servlet.Deployment.Container;
import io.slidingwindow.testkit.FakeTicker;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link RateLimitEnforcer#recheck} in a real Tomcat, Jetty and Undertow (each test on each): the
 * rate limit filter, then a method override (the {@code X-HTTP-Method-Override} header turning a
 * {@code POST} into its method), then a servlet that enforces the filter's rules once more before
 * it answers, as the Spring MVC interceptor does before a handler. A path rewrite ({@code
 * X-Rewrite-To}) changes the request URI and the servlet path, {@code X-Rewrite-Uri} the request
 * URI alone.
 */
class RecheckTest {

  @TempDir Path baseDir;

  private final FakeTicker ticker = new FakeTicker();

  private static final HttpRule DELETES =
      HttpRule.builder("deletes")
          .path("/items/**")
          .methods("DELETE")
          .limit(Limit.exact(1, Duration.ofSeconds(60)))
          .build();

  private static final HttpRule ITEMS =
      HttpRule.builder("items")
          .path("/items/**")
          .limit(Limit.exact(2, Duration.ofSeconds(60)))
          .build();

  /** The filter, then the method override, before a servlet that rechecks or not. */
  private ServletServer serve(Container container, HttpRule rule, boolean recheck)
      throws Exception {
    RateLimitFilter rateLimit =
        new RateLimitFilter(
            RateLimitEnforcer.builder()
                .rule(rule)
                .limiterFactory(RateLimiterFactory.inMemory(ticker, 1000))
                .build());
    Filter overrideAfterIt =
        (request, response, chain) ->
            rateLimit.doFilter(
                request,
                response,
                (passed, answer) -> {
                  HttpServletRequest http = (HttpServletRequest) passed;
                  String method = http.getHeader("X-HTTP-Method-Override");
                  String path = http.getHeader("X-Rewrite-To");
                  String uri = path != null ? path : http.getHeader("X-Rewrite-Uri");
                  chain.doFilter(
                      method == null && uri == null
                          ? passed
                          : new HttpServletRequestWrapper(http) {
                            @Override
                            public String getMethod() {
                              return method == null ? super.getMethod() : method;
                            }

                            @Override
                            public String getRequestURI() {
                              return uri == null ? super.getRequestURI() : uri;
                            }

                            @Override
                            public String getServletPath() {
                              return path == null ? super.getServletPath() : path;
                            }
                          },
                      answer);
                });
    HttpServlet servlet =
        new HttpServlet() {
          @Override
          protected void service(HttpServletRequest req, HttpServletResponse resp)
              throws IOException {
            if (recheck && !RateLimitEnforcer.recheck(req, resp)) {
              return;
            }
            if (req.getRequestURI().startsWith("/forward/")) {
              try {
                req.getRequestDispatcher("/items/" + req.getRequestURI().substring(9))
                    .forward(req, resp);
              } catch (ServletException e) {
                throw new IOException(e);
              }
              return;
            }
            resp.setContentType("text/plain");
            resp.getWriter().write(req.getMethod());
          }
        };
    return container.start(Deployment.of(overrideAfterIt, servlet), baseDir);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void recheck_methodOverriddenAfterTheFilter_isCountedByTheRuleOfTheNewMethod(Container container)
      throws Exception {
    try (ServletServer server = serve(container, DELETES, true)) {
      assertThat(server.send("POST", "/items/1", "X-HTTP-Method-Override", "DELETE").body())
          .isEqualTo("DELETE");
      var second = server.send("POST", "/items/1", "X-HTTP-Method-Override", "DELETE");
      assertThat(second.statusCode()).isEqualTo(429);
      assertThat(second.headers().firstValue("Content-Type"))
          .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
      assertThat(second.headers().firstValue("Retry-After")).isPresent();
      assertThat(server.send("DELETE", "/items/2").statusCode()).isEqualTo(429);
      assertThat(server.send("POST", "/items/3").statusCode())
          .as("an unchanged POST is no DELETE")
          .isEqualTo(200);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void noRecheck_methodOverriddenAfterTheFilter_isNotSeenByTheRule(Container container)
      throws Exception {
    try (ServletServer server = serve(container, DELETES, false)) {
      assertThat(server.send("POST", "/items/1", "X-HTTP-Method-Override", "DELETE").statusCode())
          .isEqualTo(200);
      assertThat(server.send("POST", "/items/1", "X-HTTP-Method-Override", "DELETE").statusCode())
          .as("without the second look the filter alone decides")
          .isEqualTo(200);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void recheck_ruleTheFilterApplied_isNotAppliedAgain(Container container) throws Exception {
    try (ServletServer server = serve(container, ITEMS, true)) {
      assertThat(server.send("POST", "/items/1", "X-HTTP-Method-Override", "DELETE").statusCode())
          .isEqualTo(200);
      assertThat(server.send("POST", "/items/1", "X-HTTP-Method-Override", "DELETE").statusCode())
          .as("each request counted once by the rule for every method")
          .isEqualTo(200);
      assertThat(server.send("POST", "/items/1", "X-HTTP-Method-Override", "DELETE").statusCode())
          .isEqualTo(429);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void recheck_pathRewrittenAfterTheFilterToAnOddSpelling_isCountedNotRefused(Container container)
      throws Exception {
    // The client's path passed the firewall; the application's own rewrite is not judged by it.
    try (ServletServer server = serve(container, ITEMS, true)) {
      assertThat(server.send("GET", "/other", "X-Rewrite-To", "//items/1").statusCode())
          .isEqualTo(200);
      assertThat(server.send("GET", "/other", "X-Rewrite-To", "//items/1").statusCode())
          .isEqualTo(200);
      assertThat(server.send("GET", "/other", "X-Rewrite-To", "//items/1").statusCode())
          .as("the rewritten path read as /items/1, over the rule's 2")
          .isEqualTo(429);
    }
  }

  /** A wrapper that changes the request URI alone, which a dispatcher matching it reads. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void recheck_requestUriAloneRewrittenAfterTheFilter_isCountedByTheRuleOfTheNewUri(
      Container container) throws Exception {
    try (ServletServer server = serve(container, ITEMS, true)) {
      for (int i = 0; i < 2; i++) {
        assertThat(server.send("GET", "/other", "X-Rewrite-Uri", "/items/1").statusCode())
            .isEqualTo(200);
      }
      assertThat(server.send("GET", "/other", "X-Rewrite-Uri", "/items/1").statusCode())
          .as("the rewritten URI is under the rule's paths, over its 2")
          .isEqualTo(429);
    }
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(Container.class)
  void recheck_forwardDispatch_isNotLookedAtAgain(Container container) throws Exception {
    try (ServletServer server = serve(container, ITEMS, true)) {
      for (int i = 0; i < 3; i++) {
        assertThat(server.send("GET", "/forward/1").statusCode())
            .as("a forward inside the application is counted as the request it serves, not again")
            .isEqualTo(200);
      }
    }
  }
}
