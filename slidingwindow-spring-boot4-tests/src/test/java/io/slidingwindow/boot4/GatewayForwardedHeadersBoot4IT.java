package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.gateway.GatewayKeys;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.testkit.http.LoopbackBackend;
import io.slidingwindow.testkit.http.RawHttp;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;

/**
 * The gateway module's {@code GatewayForwardedHeadersIT} on Spring Cloud Gateway 5 (Boot 4, Reactor
 * Netty 1.3): a gateway whose server believes forwarded headers, by {@code
 * server.forward-headers-strategy=native} or by a cloud platform ({@code
 * spring.main.cloud-platform=kubernetes}), hands the first {@code X-Forwarded-For} value to the
 * application as the remote address. The route keyed by {@link GatewayKeys#clientAddress} and the
 * starter's rule keyed by {@code ip} must still count the connection's peer, believing {@code
 * X-Forwarded-For} only from the trusted proxy 127.0.0.1, read right to left.
 *
 * <p>Unlike Boot 3.5, Boot 4 takes {@code spring.main.cloud-platform=none} as no platform, so the
 * server reports the peer there and that case proves nothing here. Windows live in the gateway's
 * memory.
 */
@WithoutRedisServer
class GatewayForwardedHeadersBoot4IT {

  private static final int PERMITS = 2;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class Gateway {
    @Bean
    KeyResolver addressKeyResolver(ClientAddresses addresses) {
      return GatewayKeys.clientAddress(addresses);
    }

    /** Answers the remote address the server reports for the request: the positive control. */
    @Bean
    RouterFunction<ServerResponse> remoteAddress() {
      return RouterFunctions.route(
          RequestPredicates.GET("/remote-address"),
          request ->
              ServerResponse.ok()
                  .bodyValue(
                      String.valueOf(
                          request
                              .exchange()
                              .getRequest()
                              .getRemoteAddress()
                              .getAddress()
                              .getHostAddress())));
    }
  }

  private static ConfigurableApplicationContext start(String uri, String setting) {
    String routes = "spring.cloud.gateway.server.webflux.routes";
    String limit = routes + "[0].filters[0].args.sliding-window-rate-limiter.limits[0]";
    String rule = "slidingwindow.http.rules.ruled";
    Map<String, Object> all = new HashMap<>();
    all.put("spring.config.name", "boot4-gateway-forwarded-headers");
    all.put("spring.main.web-application-type", "reactive");
    all.put("spring.autoconfigure.exclude", Apps.GATEWAY_REDIS);
    all.put("slidingwindow.http.trusted-proxies", "127.0.0.1");
    all.put(routes + "[0].id", "address");
    all.put(routes + "[0].uri", uri);
    all.put(routes + "[0].predicates[0]", "Path=/address/**");
    all.put(routes + "[0].filters[0].name", "RequestRateLimiter");
    all.put(routes + "[0].filters[0].args.key-resolver", "#{@addressKeyResolver}");
    all.put(limit + ".permits", PERMITS);
    all.put(limit + ".window", "1h");
    all.put(routes + "[1].id", "ruled");
    all.put(routes + "[1].uri", uri);
    all.put(routes + "[1].predicates[0]", "Path=/ruled/**");
    all.put(rule + ".paths", "/ruled/**");
    all.put(rule + ".key", "ip");
    all.put(rule + ".limits[0].permits", PERMITS);
    all.put(rule + ".limits[0].window", "1h");
    String[] nameValue = setting.split("=", 2);
    all.put(nameValue[0], nameValue[1]);
    return Apps.start(Gateway.class, all);
  }

  /**
   * How many of {@code count} GETs of {@code path} from {@code from} were let through, each with
   * {@code forwarded} as {@code X-Forwarded-For}, or a new address each time if it is null.
   */
  private static int granted(InetAddress from, int port, String path, int count, String forwarded)
      throws Exception {
    List<String> answers = new ArrayList<>();
    int granted = 0;
    for (int i = 0; i < count; i++) {
      String header = forwarded != null ? forwarded : "198.51.100." + (i + 1);
      int status =
          RawHttp.send(from, port, "GET", path, List.of("X-Forwarded-For", header)).status();
      answers.add(header + " -> " + status);
      granted += status == 200 ? 1 : 0;
    }
    System.out.println(path + " from " + from + ": " + answers);
    return granted;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {"server.forward-headers-strategy=native", "spring.main.cloud-platform=kubernetes"})
  void serverBelievesForwardedHeaders_aClientRotatingXForwardedFor_getsOnlyItsPermits(
      String setting) throws Exception {
    try (LoopbackBackend backend = LoopbackBackend.start();
        ConfigurableApplicationContext gateway = start(backend.uri().toString(), setting)) {
      int port = Apps.uri(gateway).getPort();
      InetAddress client = InetAddress.getByAddress(new byte[] {127, 0, 6, 1});
      InetAddress other = InetAddress.getByAddress(new byte[] {127, 0, 6, 2});
      RawHttp.Response remote =
          RawHttp.send(
              InetAddress.getByAddress(new byte[] {127, 0, 6, 3}),
              port,
              "GET",
              "/remote-address",
              List.of("X-Forwarded-For", "198.51.100.77"));
      assertThat(remote.status()).as("the control's status, %s", setting).isEqualTo(200);
      assertThat(remote.body())
          .as("the server believes X-Forwarded-For (the setting applies), %s", setting)
          .isEqualTo("198.51.100.77");

      assertThat(granted(client, port, "/address/a", 4 * PERMITS, null))
          .as("route keyed by GatewayKeys.clientAddress, %s", setting)
          .isEqualTo(PERMITS);
      assertThat(granted(other, port, "/ruled/a", 4 * PERMITS, null))
          .as("rule keyed by ip, %s", setting)
          .isEqualTo(PERMITS);

      // Behind the trusted proxy the client it appended counts, whatever the client wrote first.
      InetAddress proxy = InetAddress.getByName("127.0.0.1");
      for (String path : List.of("/address/b", "/ruled/b")) {
        int spoofing = 0;
        for (int i = 0; i < 2 * PERMITS; i++) {
          spoofing += granted(proxy, port, path, 1, "198.51.100." + (50 + i) + ", 203.0.113.9");
        }
        assertThat(spoofing)
            .as("%s behind the trusted proxy, %s", path, setting)
            .isEqualTo(PERMITS);
      }
    }
  }
}
