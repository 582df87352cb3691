package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.testkit.FakeTicker;
import jakarta.servlet.Filter;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
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
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.context.request.async.DeferredResult;
import org.springframework.web.servlet.HandlerInterceptor;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.ViewControllerRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * {@code @RateLimit} counts a request however it reaches the annotated method: by a forward (a view
 * controller's {@code forward:}, a controller that forwards, a filter before Spring MVC that
 * forwards), by an error page the container shows for a status a filter sent, and not twice by the
 * async dispatch of a method that answered later; a {@code HEAD} that the {@code GET} method serves
 * counts as the {@code GET}. A handler that wrote its answer and then failed, or whose client went
 * away while it wrote, has been served: a rule counting only some statuses settles it with the
 * status the client was sent, not as 500. On a real Tomcat with real HTTP clients; time stands
 * still on the fake ticker. Each test has its own endpoints, since the context is shared.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = MvcAnnotationDispatchesHttpTest.App.class,
    properties = {
      "spring.main.web-application-type=servlet",
      "server.address=127.0.0.1",
      "slidingwindow.http.rules.served.paths=/rule/written-then-failed",
      "slidingwindow.http.rules.served.key=global",
      "slidingwindow.http.rules.served.count-statuses=200-299",
      "slidingwindow.http.rules.served.limits[0].permits=1",
      "slidingwindow.http.rules.served.limits[0].window=1m",
    })
class MvcAnnotationDispatchesHttpTest {

  @SpringBootApplication
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker(3_000_000_000L);
    }

    @Bean
    Runs runs() {
      return new Runs();
    }

    /** How many times each handler ran, and how many exchanges of each path completed. */
    static final class Runs {
      private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();

      void ran(String name) {
        runs.computeIfAbsent(name, n -> new AtomicInteger()).incrementAndGet();
      }

      int of(String name) {
        AtomicInteger count = runs.get(name);
        return count == null ? 0 : count.get();
      }
    }

    /**
     * A filter before Spring MVC that forwards {@code /alias/report} to {@code /report}, so that
     * the dispatcher sees only the forward (and {@code /alias/log-in} to {@code /log-in}); and one
     * that answers 401 to {@code /private/**} with {@code sendError}, whose error page is the
     * annotated {@code /sign-in}.
     */
    @Bean
    FilterRegistrationBean<Filter> aliasAndAuthentication() {
      Filter filter =
          (request, response, chain) -> {
            HttpServletRequest http = (HttpServletRequest) request;
            if (http.getRequestURI().equals("/alias/report")) {
              request.getRequestDispatcher("/report").forward(request, response);
              return;
            }
            if (http.getRequestURI().equals("/alias/log-in")) {
              request.getRequestDispatcher("/log-in").forward(request, response);
              return;
            }
            if (http.getRequestURI().startsWith("/private/")) {
              ((HttpServletResponse) response).sendError(401);
              return;
            }
            chain.doFilter(request, response);
          };
      FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(filter);
      registration.setOrder(-50);
      registration.addUrlPatterns("/*");
      return registration;
    }

    @Bean
    ErrorPageRegistrar errorPages() {
      return registry -> registry.addErrorPages(new ErrorPage(HttpStatus.UNAUTHORIZED, "/sign-in"));
    }

    @Configuration(proxyBeanMethods = false)
    static class Mvc implements WebMvcConfigurer {
      @Autowired Runs runs;

      @Override
      public void addViewControllers(ViewControllerRegistry registry) {
        registry.addViewController("/legacy/quote").setViewName("forward:/quote");
      }

      /** First in line, so its {@code afterCompletion} runs after the rate limit interceptor's. */
      @Override
      public void addInterceptors(InterceptorRegistry registry) {
        registry
            .addInterceptor(
                new HandlerInterceptor() {
                  @Override
                  public void afterCompletion(
                      HttpServletRequest request,
                      HttpServletResponse response,
                      Object handler,
                      Exception error) {
                    runs.ran("completed " + request.getRequestURI());
                  }
                })
            .order(Ordered.HIGHEST_PRECEDENCE);
      }
    }

    @RestController
    static class Pages {
      @Autowired Runs runs;

      @GetMapping("/quote")
      @RateLimit(limits = "2/1m", key = "global", name = "quote")
      String quote() {
        runs.ran("quote");
        return "quote";
      }

      @GetMapping("/go/order")
      void goToOrder(HttpServletRequest request, HttpServletResponse response)
          throws IOException, ServletException {
        request.getRequestDispatcher("/order").forward(request, response);
      }

      @GetMapping("/order")
      @RateLimit(limits = "2/1m", key = "global", name = "order")
      String order() {
        runs.ran("order");
        return "order";
      }

      @GetMapping("/report")
      @RateLimit(limits = "2/1m", key = "global", name = "report")
      String report() {
        runs.ran("report");
        return "report";
      }

      @RequestMapping("/sign-in")
      @RateLimit(limits = "2/1m", key = "global", name = "sign-in")
      String signIn() {
        runs.ran("sign-in");
        return "sign in";
      }

      /** Counts failed log-ins only; this one always succeeds. */
      @GetMapping("/log-in")
      @RateLimit(limits = "1/1m", key = "global", countStatuses = "400-599", name = "log-in")
      String logIn() {
        runs.ran("log-in");
        return "welcome";
      }

      @GetMapping("/price")
      @RateLimit(limits = "1/1m", key = "global", name = "price")
      String price() {
        runs.ran("price");
        return "price";
      }

      @GetMapping("/deferred")
      @RateLimit(limits = "2/1m", key = "global", name = "deferred")
      DeferredResult<String> deferred() {
        DeferredResult<String> result = new DeferredResult<>();
        CompletableFuture.runAsync(() -> result.setResult("later"));
        return result;
      }

      @GetMapping("/future")
      @RateLimit(limits = "2/1m", key = "global", name = "future")
      CompletableFuture<String> future() {
        return CompletableFuture.supplyAsync(() -> "later");
      }

      @GetMapping("/annotated/written-then-failed")
      @RateLimit(limits = "1/1m", key = "global", countStatuses = "200-299", name = "annotated")
      void annotatedWrittenThenFailed(HttpServletResponse response) throws IOException {
        writeThenFail(response);
      }

      @GetMapping("/rule/written-then-failed")
      void ruleWrittenThenFailed(HttpServletResponse response) throws IOException {
        writeThenFail(response);
      }

      /** Writes and commits a 200, then fails. */
      private static void writeThenFail(HttpServletResponse response) throws IOException {
        response.setContentType("text/plain");
        response.getOutputStream().write("the whole report".getBytes(StandardCharsets.US_ASCII));
        response.flushBuffer();
        throw new IllegalStateException("failed after the answer was sent");
      }

      /**
       * Streams {@code size} bytes in 64 KiB pieces (a download), under a rule that counts only
       * answers it served.
       */
      @GetMapping("/download")
      @RateLimit(limits = "1/1m", key = "global", countStatuses = "200-299", name = "download")
      void download(@RequestParam int size, HttpServletResponse response) throws IOException {
        response.setContentType("application/octet-stream");
        OutputStream out = response.getOutputStream();
        byte[] piece = new byte[64 * 1024];
        for (int written = 0; written < size; written += piece.length) {
          out.write(piece);
          out.flush();
        }
      }
    }
  }

  @LocalServerPort int port;

  @Autowired App.Runs runs;

  private List<Integer> statuses(String path, int times) throws Exception {
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < times; i++) {
      statuses.add(LoopbackHttp.get(port, path).statusCode());
    }
    return statuses;
  }

  @Test
  void viewControllerForward_isCountedByTheAnnotationOfTheMethodItReaches() throws Exception {
    assertThat(statuses("/legacy/quote", 3)).containsExactly(200, 200, 429);
    assertThat(statuses("/quote", 1)).as("the same bucket").containsExactly(429);
    assertThat(runs.of("quote")).as("under 2 a minute").isEqualTo(2);
  }

  @Test
  void controllerThatForwards_isCountedByTheAnnotationOfTheMethodItReaches() throws Exception {
    assertThat(statuses("/order", 1)).containsExactly(200);
    assertThat(statuses("/go/order", 2)).containsExactly(200, 429);
    assertThat(runs.of("order")).as("under 2 a minute").isEqualTo(2);
  }

  @Test
  void filterThatForwards_isCountedByTheAnnotationOfTheMethodItReaches() throws Exception {
    assertThat(statuses("/alias/report", 3)).containsExactly(200, 200, 429);
    assertThat(runs.of("report")).as("under 2 a minute").isEqualTo(2);
  }

  /**
   * A forward from a filter ordered before the rate limit filter: no dispatch of the filter is
   * around the forward, so the forward settles its own reservation, with the status its handler
   * answered; a success under {@code countStatuses = "400-599"} gets its permit back.
   */
  @Test
  void filterThatForwards_toAMethodCountingFailures_givesTheSuccessItsPermitBack()
      throws Exception {
    assertThat(statuses("/alias/log-in", 3))
        .as("successes, not counted under 400-599 at one a minute")
        .containsExactly(200, 200, 200);
    assertThat(runs.of("log-in")).isEqualTo(3);
  }

  @Test
  void errorPageAFilterSendsTo_isCountedByItsAnnotation() throws Exception {
    assertThat(statuses("/private/a", 2)).containsExactly(401, 401);
    assertThat(statuses("/private/b", 1))
        .as("the third showing of the sign-in page, under 2 a minute, refused")
        .containsExactly(429);
    assertThat(statuses("/sign-in", 1)).containsExactly(429);
    assertThat(runs.of("sign-in")).isEqualTo(2);
  }

  @Test
  void head_isServedByTheGetMethod_andCountedByItsAnnotation() throws Exception {
    HttpResponse<Void> head =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/price"))
                    .method("HEAD", HttpRequest.BodyPublishers.noBody())
                    .build(),
                HttpResponse.BodyHandlers.discarding());

    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(statuses("/price", 1)).containsExactly(429);
    assertThat(runs.of("price")).isEqualTo(1);
  }

  @Test
  void asyncAnswers_areCountedOncePerRequest() throws Exception {
    assertThat(statuses("/deferred", 3)).containsExactly(200, 200, 429);
    assertThat(statuses("/future", 3)).containsExactly(200, 200, 429);
  }

  @Test
  void annotation_handlerThatFailsAfterWritingItsAnswer_isSettledWithTheStatusSent() {
    String path = "/annotated/written-then-failed";
    assertThat(statusLine(path)).startsWith("HTTP/1.1 200");
    awaitCompleted(path, 1);

    assertThat(statusLine(path))
        .as("the 200 sent was counted under count-statuses 200-299, one a minute")
        .startsWith("HTTP/1.1 429");
  }

  @Test
  void rule_handlerThatFailsAfterWritingItsAnswer_isSettledWithTheStatusSent() {
    String path = "/rule/written-then-failed";
    assertThat(statusLine(path)).startsWith("HTTP/1.1 200");
    awaitCompleted(path, 1);

    assertThat(statusLine(path))
        .as("the 200 sent was counted under count-statuses 200-299, one a minute")
        .startsWith("HTTP/1.1 429");
  }

  /** A guard: passes before and after the settling of committed answers changed. */
  @Test
  void clientThatLeavesDuringADownload_keepsThePermitOfTheAnswerItWasSent() {
    // 256 MiB: far more than the sockets' buffers hold, so Tomcat's writes fail once it is gone.
    String big = "/download?size=" + (256 * 1024 * 1024);
    assertThat(statusLine(big)).startsWith("HTTP/1.1 200");
    awaitCompleted("/download", 1);

    assertThat(statusLine("/download?size=1"))
        .as("the client read the 200 and hung up; the answer counted, one a minute")
        .startsWith("HTTP/1.1 429");
  }

  private void awaitCompleted(String path, int times) {
    await().atMost(Duration.ofSeconds(20)).until(() -> runs.of("completed " + path) >= times);
  }

  /** Sends GET {@code target} and reads the answer's status line alone, then hangs up. */
  private String statusLine(String target) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 5_000);
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(
          ("GET " + target + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      StringBuilder line = new StringBuilder();
      for (int c; (c = in.read()) >= 0 && c != '\r' && c != '\n'; ) {
        line.append((char) c);
      }
      return line.toString();
    } catch (IOException e) {
      throw new IllegalStateException("GET " + target, e);
    }
  }
}
