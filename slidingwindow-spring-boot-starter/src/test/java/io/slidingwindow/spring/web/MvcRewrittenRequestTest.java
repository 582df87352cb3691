package io.slidingwindow.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.testkit.http.RawHttp;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Rules over paths count a request that a servlet filter after the rate limit filter changed: an
 * application's method override turning {@code POST} into {@code DELETE} (by the {@code _method}
 * parameter or the {@code X-HTTP-Method-Override} header), and a wrapper that serves {@code /old/x}
 * as {@code /docs/x} and takes a trailing slash off. Both are filter beans without an order, so
 * they run after the starter's filter (order 0), which sees the request as it was sent; the rules
 * are enforced once more where the handler is about to run, never counting a request twice. On a
 * real Tomcat with a raw socket client; each test is another client address.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = MvcRewrittenRequestTest.App.class,
    properties = {
      "spring.main.web-application-type=servlet",
      "server.address=127.0.0.1",
      "slidingwindow.http.rate-limit-headers=true",
      "slidingwindow.http.rules.deletes.paths=/items/**",
      "slidingwindow.http.rules.deletes.methods=DELETE",
      "slidingwindow.http.rules.deletes.limits[0].permits=1",
      "slidingwindow.http.rules.deletes.limits[0].window=1h",
      "slidingwindow.http.rules.docs.paths=/docs/**",
      "slidingwindow.http.rules.docs.methods=GET",
      "slidingwindow.http.rules.docs.limits[0].permits=2",
      "slidingwindow.http.rules.docs.limits[0].window=1h",
      "slidingwindow.http.rules.failed-deletes.paths=/fails/**",
      "slidingwindow.http.rules.failed-deletes.methods=DELETE",
      "slidingwindow.http.rules.failed-deletes.count-statuses=400-599",
      "slidingwindow.http.rules.failed-deletes.limits[0].permits=1",
      "slidingwindow.http.rules.failed-deletes.limits[0].window=1h",
      "slidingwindow.http.rules.watched-deletes.paths=/watched/**",
      "slidingwindow.http.rules.watched-deletes.methods=DELETE",
      "slidingwindow.http.rules.watched-deletes.dry-run=true",
      "slidingwindow.http.rules.watched-deletes.limits[0].permits=1",
      "slidingwindow.http.rules.watched-deletes.limits[0].window=1h"
    })
class MvcRewrittenRequestTest {

  static final AtomicInteger DELETES_SERVED = new AtomicInteger();
  static final Queue<String> REFUSED = new ConcurrentLinkedQueue<>();

  @SpringBootApplication
  static class App {

    /** Tomcat, although other servers are on the test class path too. */
    @Bean
    TomcatServletWebServerFactory tomcat() {
      return new TomcatServletWebServerFactory();
    }

    /** A method override, as applications write one: the parameter's or the header's method. */
    @Bean
    Filter methodOverride() {
      return (request, response, chain) -> {
        HttpServletRequest http = (HttpServletRequest) request;
        String asked = http.getParameter("_method");
        String method = asked != null ? asked : http.getHeader("X-HTTP-Method-Override");
        if (method == null || !"POST".equals(http.getMethod())) {
          chain.doFilter(request, response);
          return;
        }
        chain.doFilter(
            new HttpServletRequestWrapper(http) {
              @Override
              public String getMethod() {
                return method;
              }
            },
            response);
      };
    }

    /** Serves {@code /old/x} as {@code /docs/x}, and any path with a trailing slash without it. */
    @Bean
    Filter pathRewrite() {
      return (request, response, chain) -> {
        HttpServletRequest http = (HttpServletRequest) request;
        String path = http.getRequestURI();
        String rewritten = path.startsWith("/old/") ? "/docs/" + path.substring(5) : path;
        if (rewritten.length() > 1 && rewritten.endsWith("/")) {
          rewritten = rewritten.substring(0, rewritten.length() - 1);
        }
        if (rewritten.equals(path)) {
          chain.doFilter(request, response);
          return;
        }
        String served = rewritten;
        chain.doFilter(
            new HttpServletRequestWrapper(http) {
              @Override
              public String getRequestURI() {
                return served;
              }

              @Override
              public StringBuffer getRequestURL() {
                return new StringBuffer("http://127.0.0.1").append(served);
              }

              @Override
              public String getServletPath() {
                return served;
              }

              @Override
              public String getPathInfo() {
                return null;
              }
            },
            response);
      };
    }

    /** The rules' refusals, dry-run or not, as {@code name:dryRun}. */
    @Bean
    RateLimitListener refusals() {
      return new RateLimitListener() {
        @Override
        public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
          REFUSED.add(rule.name() + ":" + dryRun);
        }
      };
    }

    @RestController
    static class Api {
      @DeleteMapping({"/items/{id}", "/watched/{id}"})
      String delete(@PathVariable("id") String id) {
        DELETES_SERVED.incrementAndGet();
        return "deleted " + id;
      }

      @GetMapping("/docs/{id}")
      String doc(@PathVariable("id") String id) {
        return "doc " + id;
      }

      @DeleteMapping("/fails/{id}")
      ResponseEntity<String> deleteOrFail(@PathVariable("id") String id) {
        return id.startsWith("bad")
            ? ResponseEntity.badRequest().body("bad " + id)
            : ResponseEntity.ok("deleted " + id);
      }
    }
  }

  @LocalServerPort int port;

  private RawHttp.Response send(String client, String method, String target, String... headers) {
    try {
      List<String> all = new ArrayList<>(List.of("Content-Length", "0"));
      all.addAll(List.of(headers));
      return RawHttp.send(InetAddress.getByName(client), port, method, target, all);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void methodOverrideByParameter_isCountedByTheDeleteRule() {
    int served = DELETES_SERVED.get();
    assertThat(send("127.0.0.11", "POST", "/items/1?_method=DELETE").status()).isEqualTo(200);
    assertThat(DELETES_SERVED.get())
        .as("the override reached the DELETE handler")
        .isEqualTo(served + 1);

    RawHttp.Response second = send("127.0.0.11", "POST", "/items/1?_method=DELETE");

    assertThat(second.status())
        .as("the second DELETE by override from one client, over the rule's 1 an hour")
        .isEqualTo(429);
    assertThat(second.isProblemJson()).isTrue();
    assertThat(second.header("Retry-After")).isNotNull();
    assertThat(second.header("RateLimit-Policy")).contains("\"deletes\"");
    assertThat(DELETES_SERVED.get())
        .as("the refused request reached no handler")
        .isEqualTo(served + 1);
    assertThat(REFUSED).contains("deletes:false");
    // Another client has its own allowance.
    assertThat(send("127.0.0.21", "POST", "/items/1?_method=DELETE").status()).isEqualTo(200);
  }

  @Test
  void methodOverrideByHeader_sharesTheAllowanceOfPlainDeletes() {
    assertThat(send("127.0.0.12", "DELETE", "/items/2").status()).isEqualTo(200);

    RawHttp.Response overridden =
        send("127.0.0.12", "POST", "/items/2", "X-HTTP-Method-Override", "DELETE");

    assertThat(overridden.status()).isEqualTo(429);
  }

  @Test
  void pathRewrite_isCountedByTheRuleOfTheServedPath() {
    assertThat(send("127.0.0.13", "GET", "/old/a").status()).isEqualTo(200);
    RawHttp.Response second = send("127.0.0.13", "GET", "/old/a");
    assertThat(second.status()).isEqualTo(200);
    assertThat(second.header("RateLimit"))
        .as("the handler's look adds the headers")
        .contains("\"docs\"");

    assertThat(send("127.0.0.13", "GET", "/old/a").status())
        .as("the third /old/a, served as /docs/a, over the rule's 2 an hour")
        .isEqualTo(429);
    assertThat(send("127.0.0.13", "GET", "/docs/a").status()).isEqualTo(429);
  }

  @Test
  void requestCountedByTheFilter_isNotCountedAgainAtTheHandler() {
    // Unchanged, and changed in a way that keeps the rule applying (the trailing slash taken off).
    assertThat(send("127.0.0.14", "GET", "/docs/b").status()).isEqualTo(200);
    assertThat(send("127.0.0.14", "GET", "/docs/b/").status())
        .as("the filter counted /docs/b/ once, and the handler's look not again")
        .isEqualTo(200);
    assertThat(send("127.0.0.14", "GET", "/docs/b/").status()).isEqualTo(429);

    assertThat(send("127.0.0.15", "GET", "/docs/c").status()).isEqualTo(200);
    assertThat(send("127.0.0.15", "GET", "/docs/c").status()).isEqualTo(200);
    assertThat(send("127.0.0.15", "GET", "/docs/c").status()).isEqualTo(429);
  }

  @Test
  void countStatusesRule_settlesTheOverriddenRequestWithItsAnswer() {
    assertThat(send("127.0.0.16", "POST", "/fails/ok1?_method=DELETE").status()).isEqualTo(200);
    assertThat(send("127.0.0.16", "POST", "/fails/ok2?_method=DELETE").status())
        .as("the 200 before was given back")
        .isEqualTo(200);
    assertThat(send("127.0.0.16", "POST", "/fails/bad1?_method=DELETE").status()).isEqualTo(400);

    assertThat(send("127.0.0.16", "POST", "/fails/ok3?_method=DELETE").status())
        .as("the 400 counted, and the rule's 1 an hour is spent")
        .isEqualTo(429);
  }

  @Test
  void dryRunRule_reportsTheOverriddenRequestAndLetsItThrough() {
    int served = DELETES_SERVED.get();
    assertThat(send("127.0.0.17", "POST", "/watched/1?_method=DELETE").status()).isEqualTo(200);
    assertThat(send("127.0.0.17", "POST", "/watched/1?_method=DELETE").status()).isEqualTo(200);

    assertThat(DELETES_SERVED.get()).isEqualTo(served + 2);
    assertThat(REFUSED).contains("watched-deletes:true");
  }
}
