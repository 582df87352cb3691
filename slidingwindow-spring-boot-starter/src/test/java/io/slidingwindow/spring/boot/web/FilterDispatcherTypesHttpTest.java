package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
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
import org.springframework.boot.web.servlet.ServletRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code slidingwindow.http.filter-dispatcher-types: [REQUEST, ERROR, FORWARD, INCLUDE]}: the
 * starter's filter also sees error pages, forwards and includes. An error page at a limited path
 * that a filter before the rate limit filter sends a request to ({@code sendError(401)}, as
 * authentication does) is counted by the rule over it; a request that a rule counted in its request
 * dispatch is not counted again by that rule in its error page or its forward; a forward to a
 * limited path is counted by the rule over that path; a handler that includes a page and then fails
 * with 500 stays counted by a rule that counts only 5xx answers (the include, which the filter also
 * sees, does not settle the request with the interim 200 it has then). On a real Tomcat with a real
 * HTTP client. {@link FilterRequestDispatchesHttpTest} pins what the default, request dispatches
 * alone, does instead.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = FilterDispatcherTypesHttpTest.App.class,
    properties = {
      "spring.main.web-application-type=servlet",
      "server.address=127.0.0.1",
      "slidingwindow.http.filter-dispatcher-types=request,error,forward,include",
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
      "slidingwindow.http.rules.target.limits[0].window=1m",
      "slidingwindow.http.rules.st.paths=/st/**",
      "slidingwindow.http.rules.st.key=global",
      "slidingwindow.http.rules.st.count-statuses=500-599",
      "slidingwindow.http.rules.st.limits[0].permits=2",
      "slidingwindow.http.rules.st.limits[0].window=1m",
      "slidingwindow.http.rules.th.paths=/th/**",
      "slidingwindow.http.rules.th.key=global",
      "slidingwindow.http.rules.th.count-statuses=500-599",
      "slidingwindow.http.rules.th.limits[0].permits=2",
      "slidingwindow.http.rules.th.limits[0].window=1m"
    })
class FilterDispatcherTypesHttpTest {

  /**
   * An application with an authentication filter before the rate limit filter that answers 401 to a
   * request without credentials, whose error page is {@code /login}; a handler at {@code /err/boom}
   * that answers {@code sendError(500)}, whose error page is {@code /err/oops}; and one at {@code
   * /fwd/go} that forwards to {@code /fwd/target}; at {@code /st/ok} and {@code /st/fails} handlers
   * that include {@code /part} (under no rule) and answer 200 or 500; at {@code /th/fails} one that
   * includes {@code /th/part} (under its own rule) and then throws, whose error page is {@code
   * /thrown}.
   */
  @SpringBootApplication
  @Import(TomcatOnAFakeTicker.class)
  static class App {

    /** What the handler at {@code /th/fails} throws after its include. */
    static final class FailedAfterInclude extends RuntimeException {
      private static final long serialVersionUID = 1L;

      FailedAfterInclude() {
        super("failed after an include");
      }
    }

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

    /**
     * The page that handlers include, a plain servlet: it writes without flushing, so the response
     * is not committed and the handler can still set its status after the include.
     */
    @Bean
    ServletRegistrationBean<HttpServlet> part(Runs runs) {
      HttpServlet part =
          new HttpServlet() {
            private static final long serialVersionUID = 1L;

            @Override
            protected void doGet(HttpServletRequest request, HttpServletResponse response)
                throws IOException {
              runs.ran("part");
              response.getWriter().write("part");
            }
          };
      return new ServletRegistrationBean<>(part, "/part", "/th/part");
    }

    @Bean
    ErrorPageRegistrar errorPages() {
      return registry ->
          registry.addErrorPages(
              new ErrorPage(HttpStatus.UNAUTHORIZED, "/login"),
              new ErrorPage(HttpStatus.INTERNAL_SERVER_ERROR, "/err/oops"),
              new ErrorPage(FailedAfterInclude.class, "/thrown"));
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

      @GetMapping("/st/ok")
      void includesThenSucceeds(HttpServletRequest request, HttpServletResponse response)
          throws IOException, ServletException {
        runs.ran("st-ok");
        request.getRequestDispatcher("/part").include(request, response);
      }

      @GetMapping("/st/fails")
      void includesThenFails(HttpServletRequest request, HttpServletResponse response)
          throws IOException, ServletException {
        runs.ran("st-fails");
        request.getRequestDispatcher("/part").include(request, response);
        response.setStatus(500); // the include answered 200; the request ends in 500
      }

      @GetMapping("/th/fails")
      void includesThenThrows(HttpServletRequest request, HttpServletResponse response)
          throws IOException, ServletException {
        runs.ran("th-fails");
        request.getRequestDispatcher("/th/part").include(request, response);
        throw new FailedAfterInclude();
      }

      @RequestMapping("/thrown")
      String thrown() {
        return "thrown";
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

  @Test
  void include_thenTheHandlerAnswers500_staysCountedByARuleCountingOnly5xx() throws Exception {
    assertThat(statuses(port, "/st/ok", 3))
        .as("200 after an include: refunded by a rule counting 500-599, so 2 a minute let 3 by")
        .containsExactly(200, 200, 200);
    assertThat(statuses(port, "/st/fails", 3))
        .as("500 after an include that answered 200: counted, 2 a minute")
        .containsExactly(500, 500, 429);
    assertThat(runs.of("st-fails")).isEqualTo(2);
  }

  @Test
  void includeOfALimitedPage_thenTheHandlerThrows_staysCountedByARuleCountingOnly5xx()
      throws Exception {
    assertThat(statuses(port, "/th/fails", 3))
        .as("an exception after an include of a page under the same rule: 500, counted once")
        .containsExactly(500, 500, 429);
    assertThat(runs.of("th-fails")).isEqualTo(2);
    assertThat(runs.of("part")).as("the included pages ran").isGreaterThanOrEqualTo(2);
  }
}
