package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.server.ErrorPage;
import org.springframework.boot.web.server.ErrorPageRegistrar;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code slidingwindow.http.filter-dispatcher-types: [REQUEST, ERROR, FORWARD]}: the starter's
 * filter also sees error pages and forwards. An error page at a limited path that a filter before
 * the rate limit filter sends a request to ({@code sendError(401)}, as authentication does) is
 * counted by the rule over it; a request that a rule counted in its request dispatch is not counted
 * again by that rule in its error page or its forward; a forward to a limited path is counted by
 * the rule over that path. On a real Tomcat with a real HTTP client. {@link
 * FilterRequestDispatchesHttpTest} pins what the default, request dispatches alone, does instead.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = FilterDispatcherTypesHttpTest.App.class,
    properties = {
      "spring.main.web-application-type=servlet",
      "server.address=127.0.0.1",
      "slidingwindow.http.filter-dispatcher-types=request,error,forward",
      "slidingwindow.http.rules.login.paths=/login",
      "slidingwindow.http.rules.login.key=global",
      "slidingwindow.http.rules.login.limits[0].permits=1",
      "slidingwindow.http.rules.login.limits[0].window=1m",
      "slidingwindow.http.rules.err.paths=/err/**",
      "slidingwindow.http.rules.err.key=global",
      "slidingwindow.http.rules.err.limits[0].permits=3",
      "slidingwindow.http.rules.err.limits[0].window=1m",
      "slidingwindow.http.rules.fwd.paths=/fwd/**",
      "slidingwindow.http.rules.fwd.key=global",
      "slidingwindow.http.rules.fwd.limits[0].permits=3",
      "slidingwindow.http.rules.fwd.limits[0].window=1m",
      "slidingwindow.http.rules.target.paths=/fwd/target",
      "slidingwindow.http.rules.target.key=global",
      "slidingwindow.http.rules.target.limits[0].permits=2",
      "slidingwindow.http.rules.target.limits[0].window=1m"
    })
class FilterDispatcherTypesHttpTest {

  /**
   * An application with an authentication filter before the rate limit filter that answers 401 to a
   * request without credentials, whose error page is {@code /login}; a handler at {@code /err/boom}
   * that answers {@code sendError(500)}, whose error page is {@code /err/oops}; and one at {@code
   * /fwd/go} that forwards to {@code /fwd/target}.
   */
  @SpringBootApplication
  @Import(TomcatOnAFakeTicker.class)
  static class App {

    /** How many times each page ran. */
    static final class Runs {
      private final Map<String, AtomicInteger> counts = new ConcurrentHashMap<>();

      void ran(String page) {
        counts.computeIfAbsent(page, p -> new AtomicInteger()).incrementAndGet();
      }

      int of(String page) {
        AtomicInteger count = counts.get(page);
        return count == null ? 0 : count.get();
      }
    }

    @Bean
    Runs runs() {
      return new Runs();
    }

    /** Before the rate limit filter (order 0), for request dispatches, as authentication is. */
    @Bean
    FilterRegistrationBean<Filter> authentication() {
      Filter authentication =
          (request, response, chain) -> {
            HttpServletRequest http = (HttpServletRequest) request;
            if (http.getRequestURI().startsWith("/private")
                && http.getHeader("Authorization") == null) {
              ((HttpServletResponse) response).sendError(401);
              return;
            }
            chain.doFilter(request, response);
          };
      FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(authentication);
      registration.setOrder(-50);
      registration.addUrlPatterns("/*");
      return registration;
    }

    @Bean
    ErrorPageRegistrar errorPages() {
      return registry ->
          registry.addErrorPages(
              new ErrorPage(HttpStatus.UNAUTHORIZED, "/login"),
              new ErrorPage(HttpStatus.INTERNAL_SERVER_ERROR, "/err/oops"));
    }

    @RestController
    static class Pages {

      @Autowired Runs runs;

      /** The login page, also shown for 401. */
      @RequestMapping("/login")
      String login() {
        runs.ran("login");
        return "login";
      }

      @GetMapping("/err/boom")
      void boom(HttpServletResponse response) throws IOException {
        runs.ran("boom");
        response.sendError(500);
      }

      @RequestMapping("/err/oops")
      String oops() {
        runs.ran("oops");
        return "oops";
      }

      @GetMapping("/fwd/go")
      void go(HttpServletRequest request, HttpServletResponse response)
          throws IOException, ServletException {
        runs.ran("go");
        request.getRequestDispatcher("/fwd/target").forward(request, response);
      }

      @RequestMapping("/fwd/target")
      String target() {
        runs.ran("target");
        return "target";
      }
    }
  }

  @LocalServerPort int port;

  @Autowired App.Runs runs;

  /** The statuses of {@code times} GETs of {@code path}. */
  static List<Integer> statuses(int port, String path, int times) throws Exception {
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < times; i++) {
      HttpResponse<String> response = LoopbackHttp.get(port, path.replace("{i}", "" + i));
      statuses.add(response.statusCode());
    }
    return statuses;
  }

  @Test
  void errorPageAFilterBeforeSendsTo_isCountedByTheRuleOverItsPath() throws Exception {
    assertThat(LoopbackHttp.get(port, "/login").statusCode()).isEqualTo(200);

    assertThat(statuses(port, "/private/{i}", 3))
        .as("the error page at /login, under its rule of 1 a minute")
        .containsExactly(429, 429, 429);
    assertThat(runs.of("login")).isEqualTo(1);
  }

  @Test
  void errorPageOfACountedRequest_isNotCountedAgain() throws Exception {
    assertThat(statuses(port, "/err/boom", 4))
        .as("3 a minute over /err/**, the request and its error page counted once")
        .containsExactly(500, 500, 500, 429);
    assertThat(runs.of("boom")).isEqualTo(3);
    assertThat(runs.of("oops")).isEqualTo(3);
  }

  @Test
  void forward_isCountedByTheRuleOverItsTarget_andNotAgainByTheRequestsOwn() throws Exception {
    assertThat(statuses(port, "/fwd/go", 4))
        .as("2 a minute over /fwd/target in the forward, 3 a minute over /fwd/** counted once")
        .containsExactly(200, 200, 429, 429);
    assertThat(runs.of("go")).isEqualTo(3);
    assertThat(runs.of("target")).isEqualTo(2);
  }
}
