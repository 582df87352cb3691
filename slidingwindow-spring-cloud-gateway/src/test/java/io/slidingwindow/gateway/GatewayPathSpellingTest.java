package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.http.RequestPaths;
import io.slidingwindow.testkit.http.RawHttp;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * A route's limit cannot be walked around through another route to the same backend by spelling the
 * path differently. The gateway routes {@code /api/login}, limited to one request an hour per
 * client, and everything else below {@code /api/**}, unlimited, to one backend. The gateway's own
 * routing reads {@code /api//login} and {@code /api/x/../login} as other paths than {@code
 * /api/login}, so they take the unlimited route; it then forwards {@code /api//login} as {@code
 * /api/login}, and a backend that resolves dot segments (a servlet container does) serves the other
 * as the login too. Each spelling is sent byte for byte by a client of its own (a loopback address
 * each); whenever the backend got a path that reads as {@code /api/login}, the client's plain
 * {@code /api/login} must then be refused. With the path firewall (the default) they are answered
 * 400 and never forwarded.
 */
class GatewayPathSpellingTest {

  static final List<String> SPELLINGS =
      List.of(
          "/api//login",
          "//api/login",
          "/api/login//",
          "/api/./login",
          "/api/x/../login",
          "/api/x/..;/login",
          "/api/%2e/login",
          "/api/x/%2E%2E/login",
          "/api/x%2F..%2Flogin",
          "/api/x%5C..%5Clogin",
          "/api/x\\..\\login",
          "/api;x=1/login",
          "/api/login;jsessionid=1",
          "/api/login%3Bjsessionid=1",
          "/api%3bx=1/login",
          "/api/%252e%252e/login");

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class Gateway {}

  private final AtomicReference<String> forwarded = new AtomicReference<>();
  private BackendAndGateway servers;

  @AfterEach
  void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  private int start(String... properties) throws IOException {
    servers =
        new BackendAndGateway(exchange -> forwarded.set(exchange.getRequestURI().getRawPath()));
    String uri = servers.backendUri();
    String routes = "spring.cloud.gateway.server.webflux.routes";
    String limits = routes + "[0].filters[0].args.sliding-window-rate-limiter.limits[0]";
    return servers.startGateway(
        Gateway.class,
        "gateway-path-spelling",
        List.of(
            routes + "[0].id=login",
            routes + "[0].uri=" + uri,
            routes + "[0].predicates[0]=Path=/api/login",
            routes + "[0].filters[0].name=RequestRateLimiter",
            limits + ".permits=1",
            limits + ".window=1h",
            routes + "[1].id=api",
            routes + "[1].uri=" + uri,
            routes + "[1].predicates[0]=Path=/api/**"),
        properties);
  }

  /** The backend served the login for every path that reads as it once dot segments resolve. */
  private String reachedLogin() {
    String path = forwarded.getAndSet(null);
    return path != null && RequestPaths.normalizedReading(path).equals("/api/login") ? path : null;
  }

  private static InetAddress client(int i) throws IOException {
    return InetAddress.getByAddress(new byte[] {127, 0, 1, (byte) (10 + i)});
  }

  @Test
  void spelling_thatReachesTheLimitedBackendPath_isCountedByItsRoute() throws IOException {
    int port = start();

    for (int i = 0; i < SPELLINGS.size(); i++) {
      String spelling = SPELLINGS.get(i);
      RawHttp.Response response = RawHttp.send(client(i), port, "GET", spelling, List.of());
      String reached = reachedLogin();
      if (reached != null) {
        assertThat(RawHttp.send(client(i), port, "GET", "/api/login", List.of()).status())
            .as(
                "GET %s (%d) reached the backend as %s, the limited /api/login, so the client's"
                    + " one request of the hour is spent",
                spelling, response.status(), reached)
            .isEqualTo(429);
      }
      // Refused by the firewall, or by Reactor Netty itself (a raw backslash) before any filter.
      assertThat(response.status()).as("GET %s: the path firewall", spelling).isEqualTo(400);
      if (!spelling.contains("\\")) {
        assertThat(response.isProblemJson()).as("GET %s: %s", spelling, response.head()).isTrue();
        assertThat(response.body()).doesNotContain("api", "login");
      }
    }
  }

  @Test
  void plainPaths_areRoutedAndLimitedAsBefore() throws IOException {
    int port = start();

    assertThat(RawHttp.send(client(0), port, "GET", "/api/login", List.of()).status())
        .isEqualTo(200);
    assertThat(RawHttp.send(client(0), port, "GET", "/api/login", List.of()).status())
        .isEqualTo(429);
    assertThat(RawHttp.send(client(0), port, "GET", "/api/other?x=/..;%2e", List.of()).status())
        .isEqualTo(200);
    assertThat(forwarded.get()).isEqualTo("/api/other");
  }

  /**
   * An encoded semicolon is refused before any rule counts: a backend that decodes before it drops
   * path parameters reads {@code /api/login%3Bx=1} as {@code /api/login}. A rule of the starter
   * over every path, one request an hour per client, shows that the refused request was not
   * counted. Encoded {@code ?} and {@code #} go through and are forwarded as sent, as data in the
   * path.
   */
  @Test
  void encodedSemicolon_isRefusedBeforeAnyRuleCounts() throws IOException {
    int port =
        start(
            "slidingwindow.http.rules.all.paths=/**",
            "slidingwindow.http.rules.all.limits[0].permits=1",
            "slidingwindow.http.rules.all.limits[0].window=1h");

    for (String spelling : List.of("/api/login%3Bx=1", "/api/other%3b", "/api%3B/other")) {
      RawHttp.Response refused = RawHttp.send(client(0), port, "GET", spelling, List.of());
      assertThat(refused.status()).as("GET %s", spelling).isEqualTo(400);
      assertThat(refused.isProblemJson()).as("GET %s: %s", spelling, refused.head()).isTrue();
    }
    assertThat(forwarded.get()).as("nothing forwarded").isNull();
    assertThat(RawHttp.send(client(0), port, "GET", "/api/other", List.of()).status())
        .as("the refused requests spent none of the client's one request of the hour")
        .isEqualTo(200);
    assertThat(RawHttp.send(client(1), port, "GET", "/api/c%23/what%3F", List.of()).status())
        .isEqualTo(200);
    assertThat(forwarded.get()).isEqualTo("/api/c%23/what%3F");
  }

  /**
   * With semicolons allowed, an encoded one is still refused before any rule counts (see {@link
   * #semicolonsAllowed_noSpellingReachesTheLoginPastItsRoute} for why): a starter rule on {@code
   * /api/login}, one request an hour per client, shows that the refused requests were not counted,
   * and a literal {@code ;} goes through and is forwarded as sent.
   */
  @Test
  void semicolonsAllowed_anEncodedOneIsStillRefusedBeforeAnyRuleCounts() throws IOException {
    int port =
        start(
            "slidingwindow.http.path-firewall.allow=semicolon",
            "slidingwindow.http.rules.login.paths=/api/login",
            "slidingwindow.http.rules.login.limits[0].permits=1",
            "slidingwindow.http.rules.login.limits[0].window=1h");

    for (String spelling : List.of("/api/login%3Bx=1", "/api/login%3b", "/api/other%3B")) {
      RawHttp.Response refused = RawHttp.send(client(0), port, "GET", spelling, List.of());
      assertThat(refused.status()).as("GET %s", spelling).isEqualTo(400);
      assertThat(refused.isProblemJson()).as("GET %s: %s", spelling, refused.head()).isTrue();
    }
    assertThat(forwarded.get()).as("nothing forwarded").isNull();
    assertThat(RawHttp.send(client(0), port, "GET", "/api/login;x=1", List.of()).status())
        .as("the refused requests spent none of the client's one login of the hour")
        .isEqualTo(200);
    assertThat(forwarded.get()).isEqualTo("/api/login;x=1");
    assertThat(RawHttp.send(client(0), port, "GET", "/api/login", List.of()).status())
        .isEqualTo(429);
  }

  /**
   * With semicolons allowed, the login route's own limiter must count every spelling that a backend
   * serves as the login. The gateway's {@code Path} predicate drops path parameters that start with
   * a raw {@code ;}, so {@code /api/login;x=1} takes the login's route; it reads {@code %3B} as
   * data ({@code login;x=1} is not {@code login}), so {@code /api/login%3Bx=1} takes the unlimited
   * route, and a backend that decodes before it drops path parameters serves it as the login. Each
   * spelling is sent twice by a client of its own: whenever the backend got a path that reads as
   * the login (to a backend that drops parameters first or to one that decodes first), the second
   * must be refused, 429 by the route's limit; the gateway answers the encoded spellings 400.
   */
  @Test
  void semicolonsAllowed_noSpellingReachesTheLoginPastItsRoute() throws IOException {
    int port = start("slidingwindow.http.path-firewall.allow=semicolon");

    List<String> spellings =
        List.of(
            "/api/login%3Bx=1",
            "/api/login%3b", "/api%3Bx=1/login", "/api/login;x=1", "/api;x/login");
    for (int i = 0; i < spellings.size(); i++) {
      String spelling = spellings.get(i);
      RawHttp.Response first = RawHttp.send(client(i), port, "GET", spelling, List.of());
      String reached = forwarded.getAndSet(null);
      if (reached != null && readsAsLogin(reached)) {
        assertThat(RawHttp.send(client(i), port, "GET", spelling, List.of()).status())
            .as(
                "GET %s (%d) reached the backend as %s, which reads it as the limited /api/login:"
                    + " the client's second request of the hour",
                spelling, first.status(), reached)
            .isEqualTo(429);
      }
      assertThat(first.status())
          .as("GET %s: %s", spelling, first.head())
          .isEqualTo(spelling.contains("%3") ? 400 : 200);
    }
  }

  /**
   * Whether a backend reads {@code rawPath} as {@code /api/login}: one that drops path parameters
   * before it decodes, or one that decodes {@code %3B} first.
   */
  private static boolean readsAsLogin(String rawPath) {
    return RequestPaths.normalizedReading(rawPath).equals("/api/login")
        || RequestPaths.normalizedReading(rawPath.replaceAll("%3[Bb]", ";")).equals("/api/login");
  }

  @Test
  void firewallTurnedOff_aDoubledSlashTakesTheUnlimitedRouteToTheLogin() throws IOException {
    int port = start("slidingwindow.http.path-firewall.enabled=false");

    RawHttp.Response doubled = RawHttp.send(client(0), port, "GET", "/api//login", List.of());
    String reached = forwarded.getAndSet(null);
    RawHttp.Response dotted = RawHttp.send(client(0), port, "GET", "/api/./login", List.of());

    // What the firewall is for: without it, the login is reached uncounted.
    assertThat(doubled.status()).isEqualTo(200);
    assertThat(reached).isEqualTo("/api/login");
    assertThat(dotted.status()).isEqualTo(200);
    assertThat(forwarded.get()).isEqualTo("/api/./login");
    assertThat(RawHttp.send(client(0), port, "GET", "/api/login", List.of()).status())
        .as("the client's one request of the hour, after two that reached the login")
        .isEqualTo(200);
  }

  @Test
  void starterWebBeansOff_firewallStillTakesItsProperties() throws IOException {
    int port =
        start(
            "slidingwindow.http.enabled=false",
            "slidingwindow.http.path-firewall.allow=semicolon,double-slash");

    assertThat(RawHttp.send(client(0), port, "GET", "/api/other;x=1", List.of()).status())
        .isEqualTo(200);
    assertThat(RawHttp.send(client(1), port, "GET", "/api//other", List.of()).status())
        .isEqualTo(200);
    assertThat(RawHttp.send(client(2), port, "GET", "/api/./login", List.of()).status())
        .as("dot segments stay refused")
        .isEqualTo(400);
  }
}
