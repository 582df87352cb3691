package io.slidingwindow.spring.boot.web;

import io.slidingwindow.Decision;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.junit.jupiter.SpringExtension;
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
    properties = {"spring.main.web-application-type=servlet", "server.address=127.0.0.1"})
// Named directly, so that Spring Boot's test type filter, which looks for tests by their own
// annotations and methods, keeps this application's beans out of other tests' scanning: the
// tests themselves are inherited.
@ExtendWith(SpringExtension.class)
class MvcRewrittenRequestTest extends RewrittenRequestCases {

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

  @Override
  AtomicInteger deletesServed() {
    return DELETES_SERVED;
  }

  @Override
  Queue<String> refused() {
    return REFUSED;
  }
}
