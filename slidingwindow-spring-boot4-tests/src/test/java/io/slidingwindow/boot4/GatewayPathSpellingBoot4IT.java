package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import io.slidingwindow.http.RequestPaths;
import io.slidingwindow.testkit.http.RawHttp;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.webflux.autoconfigure.WebFluxProperties;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.cloud.gateway.handler.predicate.PathRoutePredicateFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.MapPropertySource;
import org.springframework.http.server.PathContainer;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * The gateway's path firewall on Spring Cloud Gateway 5 (Boot 4), as the gateway module's {@code
 * GatewayPathSpellingTest} shows it on Boot 3.5: the gateway routes {@code /api/login}, limited to
 * one request an hour per client address, and everything else below {@code /api/**}, unlimited, to
 * one backend. Each spelling of the login is sent byte for byte by a client of its own (a loopback
 * address each) and must be refused 400 or counted by the login's route: whenever the backend got a
 * path that reads as {@code /api/login} once dot segments resolve, the client's plain {@code
 * /api/login} must then be refused 429. Windows live in the gateway's memory.
 */
@ExtendWith(OutputCaptureExtension.class)
@WithoutRedisServer
class GatewayPathSpellingBoot4IT {

  /** The spellings of {@code GatewayPathSpellingTest}, byte for byte. */
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

  /** The gateway with {@code Path} predicates that match regardless of case. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class CaseInsensitiveGateway {
    @Bean
    static BeanPostProcessor pathsRegardlessOfCase() {
      return new BeanPostProcessor() {
        @Override
        public Object postProcessBeforeInitialization(Object bean, String name) {
          if (bean instanceof PathRoutePredicateFactory factory) {
            PathPatternParser parser = new PathPatternParser();
            parser.setCaseSensitive(false);
            factory.setPathPatternParser(parser);
          }
          return bean;
        }
      };
    }
  }

  /**
   * The gateway with a {@code Path} predicate factory of its own, {@code LowerCasePath}, that
   * overrides {@code apply} to match the lower-cased path: no parser tells that it ignores case.
   */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class OwnPathMatchingGateway {
    @Bean
    LowerCasePathRoutePredicateFactory lowerCasePathRoutePredicateFactory() {
      return new LowerCasePathRoutePredicateFactory();
    }
  }

  static class LowerCasePathRoutePredicateFactory extends PathRoutePredicateFactory {
    LowerCasePathRoutePredicateFactory() {
      super(new WebFluxProperties());
    }

    @Override
    public Predicate<ServerWebExchange> apply(Config config) {
      PathPatternParser parser = new PathPatternParser();
      List<PathPattern> patterns =
          config.getPatterns().stream()
              .map(pattern -> parser.parse(pattern.toLowerCase(Locale.ROOT)))
              .toList();
      return exchange -> {
        String path = exchange.getRequest().getPath().pathWithinApplication().value();
        PathContainer lowerCased = PathContainer.parsePath(path.toLowerCase(Locale.ROOT));
        return patterns.stream().anyMatch(pattern -> pattern.matches(lowerCased));
      };
    }
  }

  private Class<?> application = Gateway.class;
  private HttpServer backend;
  private final AtomicReference<String> forwarded = new AtomicReference<>();
  private ConfigurableApplicationContext gateway;

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
    if (backend != null) {
      backend.stop(0);
    }
  }

  /** Starts the backend and the gateway with its two routes, {@code properties} added. */
  private int start(String... properties) throws IOException {
    backend = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    backend.createContext(
        "/",
        exchange -> {
          forwarded.set(exchange.getRequestURI().getRawPath());
          exchange.sendResponseHeaders(200, -1);
          exchange.close();
        });
    backend.start();
    String uri = "http://127.0.0.1:" + backend.getAddress().getPort();
    String routes = "spring.cloud.gateway.server.webflux.routes";
    String limits = routes + "[0].filters[0].args.sliding-window-rate-limiter.limits[0]";
    Map<String, Object> all = new HashMap<>();
    all.put("spring.config.name", "boot4-gateway-path-spelling");
    all.put("spring.main.web-application-type", "reactive");
    // No Redis here: the route's windows are the gateway's own.
    all.put("spring.autoconfigure.exclude", Apps.GATEWAY_REDIS);
    all.put(routes + "[0].id", "login");
    all.put(routes + "[0].uri", uri);
    all.put(routes + "[0].predicates[0]", "Path=/api/login");
    all.put(routes + "[0].filters[0].name", "RequestRateLimiter");
    all.put(limits + ".permits", "1");
    all.put(limits + ".window", "1h");
    all.put(routes + "[1].id", "api");
    all.put(routes + "[1].uri", uri);
    all.put(routes + "[1].predicates[0]", "Path=/api/**");
    for (String property : properties) {
      int equals = property.indexOf('=');
      all.put(property.substring(0, equals), property.substring(equals + 1));
    }
    gateway = Apps.start(application, all);
    return Apps.uri(gateway).getPort();
  }

  /** The path the backend got last, if it reads as the login once dots resolve; else null. */
  private String reachedLogin() {
    String path = forwarded.getAndSet(null);
    return path != null && RequestPaths.normalizedReading(path).equals("/api/login") ? path : null;
  }

  private static InetAddress client(int i) throws IOException {
    return InetAddress.getByAddress(new byte[] {127, 0, 2, (byte) (10 + i)});
  }

  private static RawHttp.Response get(int client, int port, String target) throws IOException {
    return RawHttp.send(client(client), port, "GET", target, List.of());
  }

  @Test
  void everySpelling_isRefusedOrCountedByTheLimitedRoute() throws IOException {
    int port = start();

    for (int i = 0; i < SPELLINGS.size(); i++) {
      String spelling = SPELLINGS.get(i);
      forwarded.set(null);
      RawHttp.Response response = get(i, port, spelling);
      String reached = reachedLogin();
      if (reached != null) {
        assertThat(get(i, port, "/api/login").status())
            .as(
                "GET %s (%d) reached the backend as %s, the limited /api/login, so the client's"
                    + " one request of the hour must be spent",
                spelling, response.status(), reached)
            .isEqualTo(429);
      }
      // Refused by the firewall, or by Reactor Netty itself (a raw backslash) before any filter.
      assertThat(response.status())
          .as("GET %s: refused by the path firewall (%s)", spelling, response.head())
          .isEqualTo(400);
      if (!spelling.contains("\\")) {
        assertThat(response.isProblemJson()).as("GET %s: %s", spelling, response.head()).isTrue();
        assertThat(response.body()).doesNotContain("api", "login");
      }
    }
  }

  @Test
  void plainPaths_areRoutedAndLimitedAsBefore() throws IOException {
    int port = start();

    assertThat(get(0, port, "/api/login").status()).isEqualTo(200);
    assertThat(forwarded.getAndSet(null)).isEqualTo("/api/login");
    assertThat(get(0, port, "/api/login").status()).isEqualTo(429);
    assertThat(forwarded.get()).as("the refused request was not forwarded").isNull();
    assertThat(get(0, port, "/api/other?x=/..;%2e").status()).isEqualTo(200);
    assertThat(forwarded.get()).isEqualTo("/api/other");
  }

  /**
   * What the firewall is for on Boot 4: without it, spellings of the login take the unlimited route
   * and reach the backend as the login, and the client still has its one request of the hour.
   */
  @Test
  void firewallTurnedOff_spellingsReachTheLoginUncounted() throws IOException {
    int port = start("slidingwindow.http.path-firewall.enabled=false");

    List<String> uncounted = new ArrayList<>();
    for (int i = 0; i < SPELLINGS.size(); i++) {
      String spelling = SPELLINGS.get(i);
      forwarded.set(null);
      get(i, port, spelling);
      String reached = reachedLogin();
      if (reached != null && get(i, port, "/api/login").status() == 200) {
        uncounted.add(spelling + " as " + reached);
      }
    }

    assertThat(uncounted)
        .as("spellings that reached the login uncounted with the firewall off")
        .contains(
            "/api//login as /api/login",
            "/api/./login as /api/./login",
            "/api/x/../login as /api/x/../login");
  }

  @Test
  void allowances_letThroughOnlyWhatTheyName() throws IOException {
    int port = start("slidingwindow.http.path-firewall.allow=semicolon");

    assertThat(get(0, port, "/api/other;x=1").status()).isEqualTo(200);
    assertThat(get(1, port, "/api//other").status())
        .as("doubled slashes stay refused")
        .isEqualTo(400);
    assertThat(get(2, port, "/api/x/../login").status())
        .as("dot segments stay refused")
        .isEqualTo(400);
  }

  /**
   * With semicolons allowed, a literal {@code ;} takes the login's route and is counted by it, and
   * {@code %3B}, which the {@code Path} predicate reads as data (so it would take the unlimited
   * route to a backend that may decode it first and serve the login), is refused 400. Each spelling
   * is sent twice by a client of its own: whenever the backend got a path that reads as the login,
   * to a backend that drops parameters first or to one that decodes first, the second is refused.
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
      forwarded.set(null);
      RawHttp.Response first = get(i, port, spelling);
      String reached = forwarded.getAndSet(null);
      if (reached != null
          && (RequestPaths.normalizedReading(reached).equals("/api/login")
              || RequestPaths.normalizedReading(reached.replaceAll("%3[Bb]", ";"))
                  .equals("/api/login"))) {
        assertThat(get(i, port, spelling).status())
            .as(
                "GET %s (%d) reached the backend as %s, the limited /api/login: the client's"
                    + " second request of the hour",
                spelling, first.status(), reached)
            .isEqualTo(429);
      }
      assertThat(first.status())
          .as("GET %s: %s", spelling, first.head())
          .isEqualTo(spelling.contains("%3") ? 400 : 200);
    }
  }

  @Test
  void starterWebBeansOff_firewallStillTakesItsProperties() throws IOException {
    int port =
        start(
            "slidingwindow.http.enabled=false",
            "slidingwindow.http.path-firewall.allow=semicolon,double-slash");

    assertThat(get(0, port, "/api/other;x=1").status()).isEqualTo(200);
    assertThat(get(1, port, "/api//other").status()).isEqualTo(200);
    assertThat(get(2, port, "/api/./login").status())
        .as("dot segments stay refused")
        .isEqualTo(400);
  }

  /** A rule of the starter over the login, one request an hour per client address. */
  private static final Map<String, Object> LOGIN_RULE =
      Map.of(
          "slidingwindow.http.rules.login.paths", "/api/login",
          "slidingwindow.http.rules.login.limits[0].permits", "1",
          "slidingwindow.http.rules.login.limits[0].window", "1h");

  /**
   * Spring Cloud Gateway 5 keeps the factory's parser where the gateway module reads it: with
   * {@code Path} predicates that ignore case, a rule over {@code /api/login} counts every casing
   * that takes the login's route, as the gateway module's {@code GatewayPathCaseIT} shows on Boot
   * 3.5. The login route's own limit is raised out of the way, so a 429 is the rule's.
   */
  @Test
  void pathPredicatesIgnoringCase_ruleOverPathsCountsEveryCasing() throws IOException {
    application = CaseInsensitiveGateway.class;
    List<String> properties = new ArrayList<>(List.of(ROUTE_LIMIT_OUT_OF_THE_WAY));
    LOGIN_RULE.forEach((key, value) -> properties.add(key + "=" + value));
    int port = start(properties.toArray(String[]::new));

    assertEveryCasingCountedByTheRule(port);
  }

  /** The same for a rule added by a refresh ({@link EnvironmentChangeEvent}). */
  @Test
  void pathPredicatesIgnoringCase_ruleAddedByARefresh_countsEveryCasing() throws IOException {
    application = CaseInsensitiveGateway.class;
    int port = start(ROUTE_LIMIT_OUT_OF_THE_WAY);
    assertThat(get(5, port, "/API/LOGIN").status()).isEqualTo(200);
    assertThat(get(5, port, "/api/login").status()).as("no rule yet").isEqualTo(200);

    gateway
        .getEnvironment()
        .getPropertySources()
        .addFirst(new MapPropertySource("refreshed", LOGIN_RULE));
    gateway.publishEvent(new EnvironmentChangeEvent(gateway, LOGIN_RULE.keySet()));

    assertEveryCasingCountedByTheRule(port);
  }

  /**
   * On Gateway 5 too, a {@code Path} predicate factory of the application's own that overrides
   * {@code apply} is taken as ignoring case: the route of {@code LowerCasePath=/api/login} takes
   * {@code /API/LOGIN}, which the rule over {@code /api/login} must count, and a start-up warning
   * names the factory, as {@code GatewayPathCaseIT} shows on Boot 3.5.
   */
  @Test
  void pathPredicateFactoryOverridingApply_ruleOverPathsCountsEveryCasing(CapturedOutput output)
      throws IOException {
    application = OwnPathMatchingGateway.class;
    List<String> properties =
        new ArrayList<>(
            List.of(
                ROUTE_LIMIT_OUT_OF_THE_WAY,
                "spring.cloud.gateway.server.webflux.routes[0].predicates[0]"
                    + "=LowerCasePath=/api/login"));
    LOGIN_RULE.forEach((key, value) -> properties.add(key + "=" + value));
    int port = start(properties.toArray(String[]::new));

    assertEveryCasingCountedByTheRule(port);
    assertThat(output.getAll())
        .contains(
            "the gateway's Path predicates of "
                + LowerCasePathRoutePredicateFactory.class.getName()
                + " bean 'lowerCasePathRoutePredicateFactory' match paths their own way")
        .contains("setPathPatternParser");
  }

  /** The login route's own limit, raised so that it refuses nothing here. */
  private static final String ROUTE_LIMIT_OUT_OF_THE_WAY =
      "spring.cloud.gateway.server.webflux.routes[0].filters[0].args"
          + ".sliding-window-rate-limiter.limits[0].permits=1000";

  /**
   * The rule's one request of the hour, spent on one casing, refuses the others, and they are not
   * forwarded. Each casing is tried first by a client of its own.
   */
  private void assertEveryCasingCountedByTheRule(int port) throws IOException {
    List<String> casings = List.of("/api/login", "/API/LOGIN", "/Api/Login");
    for (int i = 0; i < casings.size(); i++) {
      String first = casings.get(i);
      String other = casings.get((i + 1) % casings.size());
      forwarded.set(null);
      assertThat(get(i, port, first).status()).as("GET %s", first).isEqualTo(200);
      assertThat(forwarded.getAndSet(null)).isEqualTo(first);
      assertThat(get(i, port, other).status()).as("GET %s after %s", other, first).isEqualTo(429);
      assertThat(forwarded.get()).isNull();
    }
  }
}
