package io.slidingwindow.webflux;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.http.RawHttp;
import io.slidingwindow.webflux.internal.ReactiveFilters;
import io.slidingwindow.webflux.internal.ReactiveKeySource;
import io.slidingwindow.webflux.internal.ReactiveKeys;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.http.HttpStatus;
import org.springframework.http.server.reactive.ReactorHttpHandlerAdapter;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;
import reactor.core.publisher.Mono;
import reactor.netty.DisposableServer;
import reactor.netty.http.server.HttpServer;

/**
 * A rule keyed by an API key header ({@code header:X-Api-Key} and {@code header('X-Api-Key')}, 2 a
 * minute) in front of a handler that lets a request in when the header's first value, the one it
 * reads ({@code getFirst}), is the key it issued. A client that sends the issued key and then a
 * second line of the header, new on every request (or the name in another case, or a very long
 * second value), gets the key's 2 permits and no more: the rule keys on the value the handler read.
 * Real Reactor Netty server on a loopback port, raw HTTP requests with the lines as written.
 */
class RepeatedHeaderTest {

  private static final String ISSUED = "issued-key-1";

  private DisposableServer server;
  private int port;

  @AfterEach
  void stop() {
    if (server != null) {
      server.disposeNow();
    }
  }

  private void start(String key) {
    Function<String, ReactiveKeyResolver> noBeans = name -> null;
    EnforcementCore.Builder<ReactiveKeySource> core =
        EnforcementCore.<ReactiveKeySource>builder()
            .clientKey(ReactiveKeySource::clientIp)
            .limiterFactory(RateLimiterFactory.inMemory(new FakeTicker(), 1_000));
    core.rule(
        HttpRule.builder("keys").limit(Limit.exact(2, Duration.ofMinutes(1))).build(),
        ReactiveKeys.resolver("keys", key, noBeans));
    EnforcementCore<ReactiveKeySource> built = core.build();
    ReactiveRateLimitFilter filter =
        ReactiveFilters.filter(() -> built, ClientAddresses.direct(), null, 0);
    server =
        HttpServer.create()
            .host("127.0.0.1")
            .port(0)
            .handle(
                new ReactorHttpHandlerAdapter(
                    WebHttpHandlerBuilder.webHandler(
                            exchange -> {
                              String read =
                                  exchange.getRequest().getHeaders().getFirst("X-Api-Key");
                              var response = exchange.getResponse();
                              if (!ISSUED.equals(read)) {
                                response.setStatusCode(HttpStatus.UNAUTHORIZED);
                                return response.setComplete();
                              }
                              return response.writeWith(
                                  Mono.just(
                                      response
                                          .bufferFactory()
                                          .wrap("in".getBytes(StandardCharsets.US_ASCII))));
                            })
                        .filter(filter)
                        .build()))
            .bindNow();
    port = server.port();
  }

  /** The statuses of {@code count} GETs, each with the header lines {@code lines(i)}. */
  private List<Integer> statuses(int count, Function<Integer, List<String>> lines) {
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      statuses.add(
          RawHttp.send(InetAddress.getLoopbackAddress(), port, "GET", "/items", lines.apply(i))
              .status());
    }
    return statuses;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"header:X-Api-Key", "header('x-api-key') ?: clientIp"})
  void issuedKeyThenANewSecondLine_getsTheKeysPermitsOnly(String key) {
    start(key);

    List<Integer> statuses =
        statuses(6, i -> List.of("X-Api-Key", ISSUED, "X-Api-Key", "made-up-" + i));

    assertThat(statuses).containsExactly(200, 200, 429, 429, 429, 429);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"header:X-Api-Key", "header('x-api-key') ?: clientIp"})
  void nameInOtherCases_andAVeryLongSecondLine_keyOnTheFirstValue(String key) {
    start(key);

    List<Integer> statuses =
        statuses(
            6,
            i ->
                List.of(
                    i % 2 == 0 ? "x-api-KEY" : "X-API-KEY",
                    ISSUED,
                    "x-Api-key",
                    i + "k".repeat(4_000)));

    assertThat(statuses).containsExactly(200, 200, 429, 429, 429, 429);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"header:X-Api-Key", "header('x-api-key') ?: clientIp"})
  void blankFirstLine_thenTheIssuedKey_countsUnderTheClientAddress(String key) {
    start(key);

    // The handler reads the blank first value and refuses; the rule counts the address.
    List<Integer> statuses = statuses(4, i -> List.of("X-Api-Key", "", "X-Api-Key", ISSUED));

    assertThat(statuses).containsExactly(401, 401, 429, 429);
  }
}
