package io.slidingwindow.spring.boot.web;

import io.slidingwindow.Decision;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.http.HttpMethod;
import org.springframework.http.ResponseEntity;
import org.springframework.test.context.junit.jupiter.SpringExtension;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.server.WebFilter;

/**
 * Rules over paths count a request that a web filter after the rate limit filter changed, on
 * WebFlux: an application's method override turning {@code POST} into {@code DELETE} (by the {@code
 * _method} query parameter or the {@code X-HTTP-Method-Override} header), and a filter that serves
 * {@code /old/x} as {@code /docs/x} and takes a trailing slash off. Both are web filter beans
 * without an order, so they run after the starter's filter (order 0), which sees the request as it
 * was sent; the rules are enforced once more where the handler is about to run, never counting a
 * request twice. The servlet twin is {@link MvcRewrittenRequestTest}. On Reactor Netty with a raw
 * socket client; each test is another client address.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = WebFluxRewrittenRulesTest.App.class,
    properties = {"spring.main.web-application-type=reactive", "server.address=127.0.0.1"})
// Named directly, so that Spring Boot's test type filter, which looks for tests by their own
// annotations and methods, keeps this application's beans out of other tests' scanning: the
// tests themselves are inherited.
@ExtendWith(SpringExtension.class)
class WebFluxRewrittenRulesTest extends RewrittenRequestCases {

  static final AtomicInteger DELETES_SERVED = new AtomicInteger();
  static final Queue<String> REFUSED = new ConcurrentLinkedQueue<>();

  @SpringBootApplication
  static class App {

    /** Reactor Netty, although Tomcat and Jetty are on the test class path too. */
    @Bean
    NettyReactiveWebServerFactory nettyReactiveWebServerFactory() {
      return new NettyReactiveWebServerFactory();
    }

    /** A method override, as applications write one: the parameter's or the header's method. */
    @Bean
    WebFilter methodOverride() {
      return (exchange, chain) -> {
        String asked = exchange.getRequest().getQueryParams().getFirst("_method");
        String method =
            asked != null
                ? asked
                : exchange.getRequest().getHeaders().getFirst("X-HTTP-Method-Override");
        return method == null || exchange.getRequest().getMethod() != HttpMethod.POST
            ? chain.filter(exchange)
            : chain.filter(
                exchange
                    .mutate()
                    .request(request -> request.method(HttpMethod.valueOf(method)))
                    .build());
      };
    }

    /** Serves {@code /old/x} as {@code /docs/x}, and any path with a trailing slash without it. */
    @Bean
    WebFilter pathRewrite() {
      return (exchange, chain) -> {
        String path = exchange.getRequest().getURI().getRawPath();
        String rewritten = path.startsWith("/old/") ? "/docs/" + path.substring(5) : path;
        if (rewritten.length() > 1 && rewritten.endsWith("/")) {
          rewritten = rewritten.substring(0, rewritten.length() - 1);
        }
        if (rewritten.equals(path)) {
          return chain.filter(exchange);
        }
        String served = rewritten;
        return chain.filter(exchange.mutate().request(request -> request.path(served)).build());
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
