package io.slidingwindow.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.StatusRanges;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.LogCapture;
import io.slidingwindow.testkit.RefundFailingLimiter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.WebHandler;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * Rules that count only failed answers (4xx) give the permit of a request answered otherwise back
 * when its response is committed. When one rule's backend throws an {@link Error} from that refund
 * (a class of its client that failed to load), the other rules' refunds are still asked for, and
 * the client still gets an answer: the handler's failure as 500, not a connection closed without
 * one, nor a response that never comes. Real Reactor Netty server on a loopback port, JDK client.
 */
class SettleFailureTest {

  private static final Duration PATIENCE = Duration.ofSeconds(10);

  private final FakeTicker ticker = new FakeTicker();
  private final RateLimiterFactory memory = RateLimiterFactory.inMemory(ticker, 100);
  private volatile RefundFailingLimiter broken;
  private final HttpClient client = HttpClient.newBuilder().connectTimeout(PATIENCE).build();
  private DisposableServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.disposeNow();
    }
  }

  /** Rule "broken" refunds by throwing NoClassDefFoundError at once; every other rule refunds. */
  private RateLimiterFactory backends() {
    return (name, limits, countRefused) -> {
      KeyedRateLimiter<String> windows = memory.create(name, limits, countRefused);
      if (!name.equals("broken")) {
        return windows;
      }
      broken =
          new RefundFailingLimiter(
              windows,
              new NoClassDefFoundError("the backend's client"),
              RefundFailingLimiter.Async.THROWN);
      return broken;
    };
  }

  private static HttpRule failuresOnly(String name, int permits) {
    return HttpRule.builder(name)
        .limit(Limit.exact(permits, Duration.ofMinutes(1)))
        .countStatuses(StatusRanges.parse("400-499"))
        .build();
  }

  private int start(WebHandler handler) {
    ReactiveRateLimitFilter filter =
        ReactiveRateLimitFilter.builder()
            .rule(failuresOnly("broken", 100))
            .rule(failuresOnly("refunds", 1))
            .limiterFactory(backends())
            .build();
    server =
        HttpServer.create()
            .host("127.0.0.1")
            .port(0)
            .handle(
                new ReactorHttpHandlerAdapter(
                    WebHttpHandlerBuilder.webHandler(handler).filter(filter).build()))
            .bindNow();
    return server.port();
  }

  /** The status of each of {@code count} GETs; -1 for a request that got no answer. */
  private List<Integer> statuses(int port, int count) throws InterruptedException {
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      HttpRequest request =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/items/" + i))
              .timeout(PATIENCE)
              .build();
      try {
        statuses.add(client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode());
      } catch (java.io.IOException e) {
        statuses.add(-1); // closed without an answer, or no answer within the timeout
      }
    }
    return statuses;
  }

  @Test
  void handlerFailsLater_refundThrowsAnError_theClientGetsTheFailureAndTheOtherRuleRefunds()
      throws InterruptedException {
    int port =
        start(
            exchange ->
                Mono.delay(Duration.ofMillis(5))
                    .then(Mono.error(new IllegalStateException("the handler failed"))));

    assertThat(statuses(port, 3))
        .as("each failure answered 500; rule 'refunds' (1 a minute) gave each permit back")
        .containsExactly(500, 500, 500);
    assertThat(broken.refundsAsked()).as("the broken backend was asked each time").isEqualTo(3);
  }

  @Test
  void handlerFailsAtOnce_refundThrowsAnError_theClientGetsTheFailureAndTheOtherRuleRefunds()
      throws InterruptedException {
    IllegalStateException handlerFailure = new IllegalStateException("the handler failed");
    int port = start(exchange -> Mono.error(handlerFailure));

    try (LogCapture log = LogCapture.of(ReactiveRateLimitFilter.class.getName())) {
      assertThat(statuses(port, 3))
          .as("each failure answered 500; rule 'refunds' (1 a minute) gave each permit back")
          .containsExactly(500, 500, 500);
      assertThat(broken.refundsAsked()).isEqualTo(3);
      assertThat(log.records())
          .as("each refund's Error logged with the handler's failure it is suppressed in")
          .hasSize(3)
          .allSatisfy(
              record -> {
                assertThat(record.getLevel()).isEqualTo(Level.SEVERE);
                assertThat(record.getThrown()).isSameAs(handlerFailure);
              });
      assertThat(handlerFailure.getSuppressed())
          .as("beside Reactor's own trace of where the failure went")
          .filteredOn(e -> e instanceof NoClassDefFoundError)
          .hasSize(3);
    }
  }

  @Test
  void handlerSucceeds_refundThrowsAnError_theClientGetsAnAnswer() throws InterruptedException {
    int port = start(exchange -> exchange.getResponse().setComplete());

    assertThat(statuses(port, 1))
        .as("the refund's Error answered as a server error, not a connection closed unanswered")
        .containsExactly(500);
    assertThat(broken.refundsAsked())
        .as("the broken backend was asked for the refund")
        .isEqualTo(1);
  }
}
