package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.testkit.http.LoopbackBackend;
import io.slidingwindow.testkit.http.RawHttp;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.embedded.netty.NettyServerCustomizer;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.web.reactive.function.server.RequestPredicates;
import org.springframework.web.reactive.function.server.RouterFunction;
import org.springframework.web.reactive.function.server.RouterFunctions;
import org.springframework.web.reactive.function.server.ServerResponse;
import reactor.netty.http.server.ProxyProtocolSupportType;

/**
 * A gateway whose Reactor Netty server believes forwarded headers: {@code
 * server.forward-headers-strategy=native}, Spring Boot's default on a cloud platform (Kubernetes,
 * Cloud Foundry, ...), and also what Boot 3.5 does when told {@code
 * spring.main.cloud-platform=none}. Reactor Netty then reports the first {@code X-Forwarded-For}
 * value as the request's remote address, whichever peer sent it. The client address of the route
 * keys ({@link GatewayKeys#clientAddress}) and of the starter's rules ({@code key: ip}) must still
 * be the connection's peer, with {@code X-Forwarded-For} believed only from {@code
 * trusted-proxies}: a client that writes a new address into the header each time gets no quota for
 * it.
 */
@WithoutRedisServer
class GatewayForwardedHeadersIT {

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

  /** Reactor Netty reading the PROXY protocol, as behind a TCP load balancer. */
  static class ProxyProtocol {
    @Bean
    NettyServerCustomizer proxyProtocol() {
      return server -> server.proxyProtocol(ProxyProtocolSupportType.ON);
    }
  }

  private static ConfigurableApplicationContext start(String uri, String... settings) {
    return start(List.of(Gateway.class), uri, settings);
  }

  private static ConfigurableApplicationContext start(
      List<Class<?>> sources, String uri, String... settings) {
    String route = "spring.cloud.gateway.server.webflux.routes[0]";
    Map<String, Object> properties = new LinkedHashMap<>();
    properties.put("spring.main.web-application-type", "reactive");
    properties.put("spring.main.banner-mode", "off");
    properties.put("server.address", "127.0.0.1");
    properties.put("server.port", "0");
    properties.put("slidingwindow.http.trusted-proxies", "127.0.0.1");
    properties.put(route + ".id", "address");
    properties.put(route + ".uri", uri);
    properties.put(route + ".predicates[0]", "Path=/address/**");
    properties.put(route + ".filters[0].name", "RequestRateLimiter");
    properties.put(route + ".filters[0].args.key-resolver", "#{@addressKeyResolver}");
    String limit = route + ".filters[0].args.sliding-window-rate-limiter.limits[0]";
    properties.put(limit + ".permits", PERMITS);
    properties.put(limit + ".window", "1h");
    String rule = "slidingwindow.http.rules.rule";
    properties.put(rule + ".paths", "/ruled/**");
    properties.put(rule + ".key", "ip");
    properties.put(rule + ".limits[0].permits", PERMITS);
    properties.put(rule + ".limits[0].window", "1h");
    String ruled = "spring.cloud.gateway.server.webflux.routes[1]";
    properties.put(ruled + ".id", "ruled");
    properties.put(ruled + ".uri", uri);
    properties.put(ruled + ".predicates[0]", "Path=/ruled/**");
    for (int i = 0; i + 1 < settings.length; i += 2) {
      properties.put(settings[i], settings[i + 1]);
    }
    return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
        .properties("spring.config.name=gateway-forwarded-headers")
        .properties(properties)
        .run();
  }

  private static InetAddress client(int i) throws Exception {
    return InetAddress.getByAddress(new byte[] {127, 0, 5, (byte) i});
  }

  /** How many of {@code count} GETs of {@code path} from {@code from} were let through. */
  private static int granted(InetAddress from, int port, String path, int count, String forwarded) {
    int granted = 0;
    for (int i = 0; i < count; i++) {
      String header = forwarded != null ? forwarded : "198.51.100." + (i + 1);
      int status =
          RawHttp.send(from, port, "GET", path, List.of("X-Forwarded-For", header)).status();
      granted += status == 200 ? 1 : 0;
    }
    return granted;
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "server.forward-headers-strategy=native",
        "spring.main.cloud-platform=kubernetes",
        "spring.main.cloud-platform=none"
      })
  void serverBelievesForwardedHeaders_aClientRotatingXForwardedFor_getsOnlyItsPermits(
      String setting) throws Exception {
    String[] nameValue = setting.split("=", 2);
    try (LoopbackBackend backend = LoopbackBackend.start();
        ConfigurableApplicationContext gateway =
            start(backend.uri().toString(), nameValue[0], nameValue[1])) {
      int port = GatewayTestApplication.uri(gateway).getPort();
      RawHttp.Response remote =
          RawHttp.send(
              client(3),
              port,
              "GET",
              "/remote-address",
              List.of("X-Forwarded-For", "198.51.100.77"));
      assertThat(remote.status()).as("the control's status, %s", setting).isEqualTo(200);
      assertThat(remote.body())
          .as("the server believes X-Forwarded-For (the setting applies), %s", setting)
          .isEqualTo("198.51.100.77");

      assertThat(granted(client(1), port, "/address/a", 4 * PERMITS, null))
          .as("route keyed by GatewayKeys.clientAddress, %s", setting)
          .isEqualTo(PERMITS);
      assertThat(granted(client(2), port, "/ruled/a", 4 * PERMITS, null))
          .as("rule keyed by ip, %s", setting)
          .isEqualTo(PERMITS);

      // A trusted proxy is still read right to left: the client it appended counts, whatever the
      // client wrote before it.
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

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"/address/h2", "/ruled/h2"})
  void overH2c_aClientRotatingXForwardedFor_getsOnlyItsPermits(String path) throws Exception {
    try (LoopbackBackend backend = LoopbackBackend.start();
        ConfigurableApplicationContext gateway =
            start(
                backend.uri().toString(),
                "server.forward-headers-strategy",
                "native",
                "server.http2.enabled",
                "true",
                // this client connects from 127.0.0.1 and is no proxy here
                "slidingwindow.http.trusted-proxies",
                "192.0.2.1")) {
      URI target = GatewayTestApplication.uri(gateway).resolve(path);
      HttpClient client =
          HttpClient.newBuilder()
              .version(HttpClient.Version.HTTP_2)
              .connectTimeout(Http.TIMEOUT)
              .build();
      List<String> answers = new ArrayList<>();
      int granted = 0;
      for (int i = 0; i < 4 * PERMITS; i++) {
        HttpResponse<String> response =
            client.send(
                HttpRequest.newBuilder(target)
                    .header("X-Forwarded-For", "198.51.100." + (100 + i))
                    .timeout(Duration.ofSeconds(15))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        answers.add(response.version() + " " + response.statusCode());
        granted += response.statusCode() == 200 ? 1 : 0;
      }
      assertThat(answers).as("answers").contains("HTTP_2 429");
      assertThat(granted).as("%s over h2c: %s", path, answers).isEqualTo(PERMITS);
    }
  }

  /**
   * {@code GET path} over a new connection that starts with a PROXY protocol (v1) line naming
   * {@code client} as the source, as a TCP load balancer sends it, with {@code X-Forwarded-For:
   * forwarded} unless null; its status.
   */
  private static int behindLoadBalancer(int port, String client, String path, String forwarded)
      throws Exception {
    try (Socket socket = new Socket(InetAddress.getByName("127.0.0.1"), port)) {
      socket.setSoTimeout(15_000);
      String request =
          "PROXY TCP4 "
              + client
              + " 127.0.0.1 40000 "
              + port
              + "\r\nGET "
              + path
              + " HTTP/1.1\r\nHost: 127.0.0.1:"
              + port
              + "\r\n"
              + (forwarded == null ? "" : "X-Forwarded-For: " + forwarded + "\r\n")
              + "Connection: close\r\n\r\n";
      socket.getOutputStream().write(request.getBytes(StandardCharsets.US_ASCII));
      socket.getOutputStream().flush();
      BufferedReader reader =
          new BufferedReader(
              new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
      String status = reader.readLine();
      assertThat(status).as("status line").startsWith("HTTP/1.1 ");
      return Integer.parseInt(status.substring(9, 12));
    }
  }

  /**
   * Behind a load balancer that speaks the PROXY protocol, every connection comes from the
   * balancer; each client is the source it names. Two clients each get their own permits; one that
   * has spent them gets no more by writing X-Forwarded-For (not the balancer's key either: the
   * balancer is no trusted proxy and writes no such header), whether or not the server believes
   * forwarded headers; one that writes a new X-Forwarded-For each time gets no fresh key for it.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"/address/p", "/ruled/p"})
  void behindAProxyProtocolBalancer_eachClientIsItsOwnKey(String path) throws Exception {
    for (String strategy : List.of("native", "none")) {
      try (LoopbackBackend backend = LoopbackBackend.start();
          ConfigurableApplicationContext gateway =
              start(
                  List.of(Gateway.class, ProxyProtocol.class),
                  backend.uri().toString(),
                  "server.forward-headers-strategy",
                  strategy,
                  "slidingwindow.http.trusted-proxies",
                  "192.0.2.1")) {
        int port = GatewayTestApplication.uri(gateway).getPort();
        List<Integer> first = new ArrayList<>();
        List<Integer> second = new ArrayList<>();
        for (int i = 0; i < PERMITS + 1; i++) {
          first.add(behindLoadBalancer(port, "198.51.100.7", path, null));
        }
        for (int i = 0; i < PERMITS + 1; i++) {
          second.add(behindLoadBalancer(port, "198.51.100.8", path, null));
        }
        assertThat(first)
            .as("the first client, %s, %s", path, strategy)
            .containsExactly(200, 200, 429);
        assertThat(second)
            .as("the second client, its own key, %s, %s", path, strategy)
            .containsExactly(200, 200, 429);
        List<Integer> spent = new ArrayList<>();
        for (String forwarded : List.of("198.51.100.7", "203.0.113.1", "192.0.2.1")) {
          spent.add(behindLoadBalancer(port, "198.51.100.7", path, forwarded));
        }
        assertThat(spent)
            .as("the first client once spent, writing X-Forwarded-For, %s, %s", path, strategy)
            .containsExactly(429, 429, 429);

        int rotating = 0;
        for (int i = 0; i < 4 * PERMITS; i++) {
          rotating +=
              behindLoadBalancer(port, "198.51.100.9", path, "203.0.113." + (i + 1)) == 200 ? 1 : 0;
        }
        assertThat(rotating)
            .as("a client writing a new X-Forwarded-For each time, %s, %s", path, strategy)
            .isLessThanOrEqualTo(PERMITS);
      }
    }
  }
}
