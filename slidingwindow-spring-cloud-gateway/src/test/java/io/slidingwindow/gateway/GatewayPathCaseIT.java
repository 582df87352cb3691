package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.http.RawHttp;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
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
import org.springframework.boot.autoconfigure.web.reactive.WebFluxProperties;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
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
 * A spelling of a path that the gateway's {@code Path} predicate takes for {@code /api/login} is
 * counted by a rule over {@code /api/login}. A real gateway on a loopback port routes {@code
 * Path=/api/login} (marked {@code X-Route: login}) and {@code Path=/api/**} to a real backend that
 * records what reached it; each spelling is sent byte for byte by a client address of its own.
 *
 * <p>Looser than the rules by default only in case, and only when the application gives the
 * predicate factory a parser that ignores case ({@code setPathPatternParser}): then {@code
 * /API/LOGIN} takes the login's route, and the rules of {@code slidingwindow.http.rules} over paths
 * ignore case too, as built at start-up and as rebuilt on a refresh. Other loose readings of the
 * predicate on Spring Cloud Gateway 4.3 (a trailing slash, with {@code matchTrailingSlash} true by
 * default; percent-encoded letters, decoded; path parameters, dropped) are counted by the rule.
 */
@ExtendWith(OutputCaptureExtension.class)
@WithoutRedisServer
class GatewayPathCaseIT {

  /** A gateway as configured by properties. */
  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class Gateway {}

  /** A gateway whose {@code Path} predicates match regardless of case. */
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
   * A gateway with a {@code Path} predicate factory of its own, {@code LowerCasePath}, that matches
   * the lower-cased path with patterns of its own parsing, overriding {@code apply}: no parser of
   * the gateway tells that it ignores case.
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
        PathContainer path =
            PathContainer.parsePath(
                exchange
                    .getRequest()
                    .getPath()
                    .pathWithinApplication()
                    .value()
                    .toLowerCase(Locale.ROOT));
        return patterns.stream().anyMatch(pattern -> pattern.matches(path));
      };
    }
  }

  /** A rule of the starter over the login: one request an hour per client address. */
  private static final List<String> LOGIN_RULE =
      List.of(
          "slidingwindow.http.rules.login.paths=/api/login",
          "slidingwindow.http.rules.login.key=ip",
          "slidingwindow.http.rules.login.limits[0].permits=1",
          "slidingwindow.http.rules.login.limits[0].window=1h");

  /** The same limit on the login's route itself. */
  private static final List<String> LOGIN_ROUTE_LIMIT =
      List.of(
          "spring.cloud.gateway.server.webflux.routes[0].filters[1].name=RequestRateLimiter",
          "spring.cloud.gateway.server.webflux.routes[0].filters[1].args"
              + ".sliding-window-rate-limiter.limits[0].permits=1",
          "spring.cloud.gateway.server.webflux.routes[0].filters[1].args"
              + ".sliding-window-rate-limiter.limits[0].window=1h");

  private final AtomicReference<String> reached = new AtomicReference<>();
  private BackendAndGateway servers;
  private ConfigurableApplicationContext gateway;

  @AfterEach
  void stop() {
    if (servers != null) {
      servers.close();
    }
  }

  private int start(Class<?> application, List<String> properties) throws IOException {
    return start(application, "Path=/api/login", properties);
  }

  private int start(Class<?> application, String loginPredicate, List<String> properties)
      throws IOException {
    servers =
        new BackendAndGateway(
            exchange ->
                reached.set(
                    exchange.getRequestHeaders().getFirst("X-Route")
                        + " "
                        + exchange.getRequestURI().getRawPath()));
    String uri = servers.backendUri();
    String routes = "spring.cloud.gateway.server.webflux.routes";
    int port =
        servers.startGateway(
            application,
            "gateway-path-case",
            List.of(
                routes + "[0].id=login",
                routes + "[0].uri=" + uri,
                routes + "[0].predicates[0]=" + loginPredicate,
                routes + "[0].filters[0]=AddRequestHeader=X-Route, login",
                routes + "[1].id=api",
                routes + "[1].uri=" + uri,
                routes + "[1].predicates[0]=Path=/api/**",
                routes + "[1].filters[0]=AddRequestHeader=X-Route, api"),
            properties.toArray(String[]::new));
    gateway = servers.gateway();
    return port;
  }

  private static InetAddress client(int i) throws IOException {
    return InetAddress.getByAddress(new byte[] {127, 0, 2, (byte) (10 + i)});
  }

  private static int get(int client, int port, String target) throws IOException {
    return RawHttp.send(client(client), port, "GET", target, List.of()).status();
  }

  @Test
  void pathPredicatesIgnoringCase_ruleOverPathsCountsEveryCasing() throws IOException {
    int port = start(CaseInsensitiveGateway.class, LOGIN_RULE);

    assertEveryCasingCounted(port);
  }

  /**
   * A rule over {@code /api/login} added by a refresh ({@link EnvironmentChangeEvent}, as after
   * {@code /actuator/refresh}) is rebuilt to follow the predicates' case too.
   */
  @Test
  void pathPredicatesIgnoringCase_ruleAddedByARefresh_countsEveryCasing() throws IOException {
    int port = start(CaseInsensitiveGateway.class, List.of());
    assertThat(get(5, port, "/API/LOGIN")).isEqualTo(200);
    assertThat(get(5, port, "/api/login")).as("no rule yet").isEqualTo(200);

    Map<String, Object> rule = new LinkedHashMap<>();
    for (String property : LOGIN_RULE) {
      int equals = property.indexOf('=');
      rule.put(property.substring(0, equals), property.substring(equals + 1));
    }
    gateway
        .getEnvironment()
        .getPropertySources()
        .addFirst(new MapPropertySource("refreshed", rule));
    gateway.publishEvent(new EnvironmentChangeEvent(gateway, rule.keySet()));

    assertEveryCasingCounted(port);
  }

  /**
   * A {@code Path} predicate factory of the application's own that overrides {@code apply} is taken
   * as ignoring case: its matching cannot be read, and the route of {@code
   * LowerCasePath=/api/login} takes {@code /API/LOGIN}, which the rule over {@code /api/login} must
   * count. A warning at start-up names the factory and what to do.
   */
  @Test
  void pathPredicateFactoryOverridingApply_ruleOverPathsCountsEveryCasing(CapturedOutput output)
      throws IOException {
    int port = start(OwnPathMatchingGateway.class, "LowerCasePath=/api/login", LOGIN_RULE);

    assertEveryCasingCounted(port);
    assertThat(output.getAll())
        .contains(
            "the gateway's Path predicates of "
                + LowerCasePathRoutePredicateFactory.class.getName()
                + " bean 'lowerCasePathRoutePredicateFactory' match paths their own way")
        .contains("setPathPatternParser");
  }

  /** The rule's one request of the hour, spent by a casing of the login, stops every other. */
  private void assertEveryCasingCounted(int port) throws IOException {
    assertThat(get(0, port, "/api/login")).isEqualTo(200);
    assertThat(get(0, port, "/API/LOGIN"))
        .as(
            "GET /API/LOGIN after the client's one request of the hour to /api/login: the rule"
                + " over /api/login must count the casing the login's route takes")
        .isEqualTo(429);
    assertThat(get(1, port, "/API/LOGIN")).as("another client").isEqualTo(200);
    assertThat(reached.getAndSet(null)).isEqualTo("login /API/LOGIN");
    assertThat(get(1, port, "/Api/Login")).isEqualTo(429);
    assertThat(get(1, port, "/api/login")).isEqualTo(429);
    assertThat(reached.get()).as("nothing refused was forwarded").isNull();
  }

  @Test
  void pathPredicatesIgnoringCase_routeLimitCountsEveryCasing() throws IOException {
    int port = start(CaseInsensitiveGateway.class, LOGIN_ROUTE_LIMIT);

    assertThat(get(0, port, "/API/LOGIN")).isEqualTo(200);
    assertThat(reached.getAndSet(null)).isEqualTo("login /API/LOGIN");
    assertThat(get(0, port, "/api/login")).isEqualTo(429);
    assertThat(get(0, port, "/Api/Login")).isEqualTo(429);
    assertThat(get(1, port, "/api/login")).as("another client").isEqualTo(200);
    assertThat(reached.get()).isEqualTo("login /api/login");
  }

  @Test
  void caseSensitivePredicates_ruleCountsTheLooseSpellingsTheLoginRouteTakes() throws IOException {
    int port =
        start(
            Gateway.class,
            concat(LOGIN_RULE, List.of("slidingwindow.http.path-firewall.allow=semicolon")));
    // What Spring Cloud Gateway 4.3 takes for Path=/api/login: a trailing slash
    // (matchTrailingSlash is true by default), letters percent-encoded, path parameters dropped.
    List<String> loginSpellings =
        List.of("/api/login/", "/api/%6Cogin", "/api/log%69n", "/api/login;x=1");

    for (int i = 0; i < loginSpellings.size(); i++) {
      String spelling = loginSpellings.get(i);
      assertThat(get(i, port, spelling))
          .as("GET %s: the client's first request", spelling)
          .isEqualTo(200);
      assertThat(reached.getAndSet(null)).as("GET %s", spelling).isEqualTo("login " + spelling);
      assertThat(get(i, port, "/api/login"))
          .as("GET %s took the login's route: the rule must have counted it", spelling)
          .isEqualTo(429);
    }
    assertThat(get(9, port, "/API/LOGIN")).as("no route takes another case").isEqualTo(404);
    assertThat(reached.get()).isNull();
  }

  private static List<String> concat(List<String> a, List<String> b) {
    List<String> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }
}
