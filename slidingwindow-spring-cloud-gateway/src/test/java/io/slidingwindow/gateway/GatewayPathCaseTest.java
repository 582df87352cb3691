package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.util.Map;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.web.reactive.WebFluxProperties;
import org.springframework.cloud.gateway.handler.predicate.PathRoutePredicateFactory;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.util.pattern.PathPatternParser;

/** How {@link GatewayPathCase} reads the case of the gateway's {@code Path} predicates. */
class GatewayPathCaseTest {

  private static PathPatternParser ignoringCase() {
    PathPatternParser parser = new PathPatternParser();
    parser.setCaseSensitive(false);
    return parser;
  }

  @Test
  void factory_isCaseSensitiveUnlessGivenAParserThatIsNot() {
    PathRoutePredicateFactory factory = new PathRoutePredicateFactory(new WebFluxProperties());
    assertThat(GatewayPathCase.caseSensitive(factory)).isTrue();

    factory.setPathPatternParser(ignoringCase());

    assertThat(GatewayPathCase.caseSensitive(factory)).isFalse();
  }

  @Test
  void subclassOfTheFactory_isReadThroughItsSuperclass() {
    PathRoutePredicateFactory factory = new PathRoutePredicateFactory(new WebFluxProperties()) {};
    factory.setPathPatternParser(ignoringCase());

    assertThat(GatewayPathCase.caseSensitive(factory)).isFalse();
  }

  @Test
  void subclassOverridingApply_takenAsIgnoringCase() {
    PathRoutePredicateFactory plain = new PathRoutePredicateFactory(new WebFluxProperties()) {};
    assertThat(GatewayPathCase.ownMatching(plain)).isNull();
    PathRoutePredicateFactory own =
        new PathRoutePredicateFactory(new WebFluxProperties()) {
          @Override
          public Predicate<ServerWebExchange> apply(Config config) {
            return exchange -> true;
          }
        };

    assertThat(GatewayPathCase.ownMatching(own)).endsWith(".apply(Config)");
    assertThat(GatewayPathCase.caseSensitive(own)).as("its parser").isTrue();
    assertThat(new GatewayPathCase(() -> Map.of("lowerCasePath", own)).ignoresCase())
        .contains("PathRoutePredicateFactory bean 'lowerCasePath' (")
        .contains("matches paths its own way")
        .contains("taken as ignoring case");
  }

  @Test
  void ignoresCase_namesTheFactoriesGivenAParserThatIgnoresCase_readEachTime() {
    PathRoutePredicateFactory factory = new PathRoutePredicateFactory(new WebFluxProperties());
    GatewayPathCase paths = new GatewayPathCase(() -> Map.of("pathRoutePredicateFactory", factory));
    assertThat(paths.ignoresCase()).isNull();

    factory.setPathPatternParser(ignoringCase());

    assertThat(paths.ignoresCase())
        .contains("Path predicates")
        .contains("PathRoutePredicateFactory bean 'pathRoutePredicateFactory'")
        .contains("setPathPatternParser");
  }

  @Test
  void factoryIgnoringCase_startsUp() {
    PathRoutePredicateFactory factory = new PathRoutePredicateFactory(new WebFluxProperties());
    factory.setPathPatternParser(ignoringCase());

    assertThatCode(
            () -> new GatewayPathCase(() -> Map.of("path", factory)).afterSingletonsInstantiated())
        .doesNotThrowAnyException();
  }
}
