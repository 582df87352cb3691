package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.servlet.RateLimitEnforcer;
import io.slidingwindow.testkit.http.RawHttp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.assertj.core.api.Condition;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.boot.web.embedded.netty.NettyReactiveWebServerFactory;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.util.AntPathMatcher;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.servlet.config.annotation.PathMatchConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * A rule over paths counts every request its handler serves when the application's handlers match
 * paths regardless of case, on a real Tomcat (Spring MVC, with a path pattern parser or an Ant path
 * matcher that ignores case) and a real Reactor Netty (WebFlux): {@code /V1/ADMIN} and {@code
 * /v1/Admin} reach the handler of {@code /v1/admin}, so the rule for {@code /v1/admin} counts them.
 * With handlers that match case-sensitively (the default) nothing changes: {@code /V1/ADMIN} is a
 * 404 that the rule does not count, since no handler serves it. Suffix pattern matching, which no
 * rule can follow, stops start-up while rules have paths; so does an enforcer of the application's
 * own whose rules match only in their own case while the handlers ignore case.
 */
class PathCaseHttpTest {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(App.Api.class)
  static class App {
    @RestController
    static class Api {
      @GetMapping("/v1/admin")
      String admin() {
        return "admin";
      }

      @GetMapping("/v1/other")
      String other() {
        return "other";
      }
    }
  }

  static class Tomcat {
    @Bean
    TomcatServletWebServerFactory tomcat() {
      return new TomcatServletWebServerFactory();
    }
  }

  static class Netty {
    @Bean
    NettyReactiveWebServerFactory netty() {
      return new NettyReactiveWebServerFactory();
    }
  }

  /** Spring MVC matching paths regardless of case with its path pattern parser. */
  static class MvcParserIgnoringCase {
    @Bean
    WebMvcConfigurer caseInsensitive() {
      return new WebMvcConfigurer() {
        @Override
        public void configurePathMatch(PathMatchConfigurer configurer) {
          PathPatternParser parser = new PathPatternParser();
          parser.setCaseSensitive(false);
          configurer.setPatternParser(parser);
        }
      };
    }
  }

  /** Spring MVC matching paths regardless of case with an Ant path matcher. */
  static class MvcAntMatcherIgnoringCase {
    @Bean
    WebMvcConfigurer caseInsensitive() {
      return new WebMvcConfigurer() {
        @Override
        public void configurePathMatch(PathMatchConfigurer configurer) {
          AntPathMatcher matcher = new AntPathMatcher();
          matcher.setCaseSensitive(false);
          configurer.setPathMatcher(matcher);
        }
      };
    }
  }

  /** WebFlux matching paths regardless of case. */
  static class WebFluxIgnoringCase {
    @Bean
    WebFluxConfigurer caseInsensitive() {
      return new WebFluxConfigurer() {
        @Override
        public void configurePathMatching(
            org.springframework.web.reactive.config.PathMatchConfigurer configurer) {
          configurer.setUseCaseSensitiveMatch(false);
        }
      };
    }
  }

  /** Spring MVC 6 matching suffixes: /v1/admin.json served by /v1/admin. */
  static class MvcSuffixes {
    @Bean
    WebMvcConfigurer suffixes() {
      return new WebMvcConfigurer() {
        @Override
        @SuppressWarnings("deprecation")
        public void configurePathMatch(PathMatchConfigurer configurer) {
          configurer.setUseSuffixPatternMatch(true);
        }
      };
    }
  }

  /** The application's own enforcer, whose rule matches only in its own case. */
  static class OwnCaseSensitiveEnforcer {
    @Bean
    RateLimitEnforcer ownEnforcer() {
      return RateLimitEnforcer.builder()
          .rule(
              HttpRule.builder("own-admin")
                  .path("/v1/admin")
                  .limit(Limit.of(1, Duration.ofMinutes(1)))
                  .build())
          .build();
    }
  }

  private static final String[] ADMIN_RULE = {
    "slidingwindow.http.rules.admin.paths=/v1/admin",
    "slidingwindow.http.rules.admin.limits[0].permits=1",
    "slidingwindow.http.rules.admin.limits[0].window=1m"
  };

  private static ConfigurableApplicationContext start(
      WebApplicationType type, List<Class<?>> configurations, String... properties) {
    List<Class<?>> sources = new ArrayList<>(List.of(App.class));
    sources.add(type == WebApplicationType.REACTIVE ? Netty.class : Tomcat.class);
    sources.addAll(configurations);
    List<String> all =
        new ArrayList<>(
            List.of("server.address=127.0.0.1", "server.port=0", "spring.main.banner-mode=off"));
    all.addAll(List.of(properties));
    return new SpringApplicationBuilder(sources.toArray(new Class<?>[0]))
        .web(type)
        .properties(all.toArray(new String[0]))
        .run();
  }

  private static int port(ConfigurableApplicationContext context) {
    return ((WebServerApplicationContext) context).getWebServer().getPort();
  }

  /**
   * In an application whose handlers ignore case: the handlers serve every casing, and the rule for
   * {@code /v1/admin} (one request a minute) refuses the second and third casings.
   */
  private static void assertRuleCountsEveryCasing(WebApplicationType type, Class<?> ignoringCase) {
    try (ConfigurableApplicationContext context = start(type, List.of(ignoringCase), ADMIN_RULE)) {
      int port = port(context);
      assertThat(RawHttp.get(port, "/V1/OTHER").status())
          .as("%s: the handlers match regardless of case", ignoringCase.getSimpleName())
          .isEqualTo(200);
      assertThat(RawHttp.get(port, "/v1/admin").status()).isEqualTo(200);
      assertThat(RawHttp.get(port, "/V1/ADMIN").status())
          .as("%s: /V1/ADMIN reaches the handler of /v1/admin", ignoringCase.getSimpleName())
          .isEqualTo(429);
      assertThat(RawHttp.get(port, "/v1/Admin").status())
          .as("%s: /v1/Admin reaches the handler of /v1/admin", ignoringCase.getSimpleName())
          .isEqualTo(429);
      assertThat(RawHttp.get(port, "/V1/OTHER").status()).isEqualTo(200);

      // Rebuilt on a configuration refresh, the rules still ignore case.
      context
          .getBean(ReloadableRules.class)
          .reload(context.getBean(SlidingWindowHttpProperties.class));
      assertThat(RawHttp.get(port, "/V1/ADMIN").status())
          .as("%s: after a reload", ignoringCase.getSimpleName())
          .isEqualTo(429);
    }
  }

  @Test
  void mvcPatternParserIgnoringCase_ruleCountsEveryCasing() {
    assertRuleCountsEveryCasing(WebApplicationType.SERVLET, MvcParserIgnoringCase.class);
  }

  @Test
  void mvcAntPathMatcherIgnoringCase_ruleCountsEveryCasing() {
    assertRuleCountsEveryCasing(WebApplicationType.SERVLET, MvcAntMatcherIgnoringCase.class);
  }

  @Test
  void webFluxIgnoringCase_ruleCountsEveryCasing() {
    assertRuleCountsEveryCasing(WebApplicationType.REACTIVE, WebFluxIgnoringCase.class);
  }

  /**
   * Handlers that match case-sensitively (the default): {@code /V1/ADMIN} reaches no handler, and
   * the rule does not count it, so {@code /v1/admin} still has its one request afterwards.
   */
  private static void assertCaseSensitiveAsBefore(WebApplicationType type) {
    try (ConfigurableApplicationContext context = start(type, List.of(), ADMIN_RULE)) {
      int port = port(context);
      assertThat(RawHttp.get(port, "/V1/ADMIN").status()).isEqualTo(404);
      assertThat(RawHttp.get(port, "/v1/Admin").status()).isEqualTo(404);
      assertThat(RawHttp.get(port, "/v1/admin").status())
          .as("%s: the 404s were not counted", type)
          .isEqualTo(200);
      assertThat(RawHttp.get(port, "/v1/admin").status()).isEqualTo(429);
      assertThat(RawHttp.get(port, "/V1/ADMIN").status()).isEqualTo(404);
    }
  }

  @Test
  void mvcCaseSensitive_ruleMatchesAsBefore() {
    assertCaseSensitiveAsBefore(WebApplicationType.SERVLET);
  }

  @Test
  void webFluxCaseSensitive_ruleMatchesAsBefore() {
    assertCaseSensitiveAsBefore(WebApplicationType.REACTIVE);
  }

  private static Condition<Throwable> causedBy(String... parts) {
    return new Condition<>(
        thrown -> {
          for (Throwable t = thrown; t != null; t = t.getCause()) {
            String message = String.valueOf(t.getMessage());
            if (List.of(parts).stream().allMatch(message::contains)) {
              return true;
            }
          }
          return false;
        },
        "a cause whose message holds %s",
        List.of(parts));
  }

  @Test
  void mvcSuffixPatternMatching_withPathRules_stopsStartUpNamingTheSetting() {
    assertThatThrownBy(
            () -> start(WebApplicationType.SERVLET, List.of(MvcSuffixes.class), ADMIN_RULE))
        .has(
            causedBy(
                "handler mapping 'requestMappingHandlerMapping' uses suffix pattern matching",
                "setUseSuffixPatternMatch",
                "[admin]",
                "@RateLimit"));
  }

  @Test
  void mvcSuffixPatternMatching_withoutPathRules_starts() {
    try (ConfigurableApplicationContext context =
        start(
            WebApplicationType.SERVLET,
            List.of(MvcSuffixes.class),
            "slidingwindow.http.rules.all.limits[0].permits=1",
            "slidingwindow.http.rules.all.limits[0].window=1m")) {
      int port = port(context);
      assertThat(RawHttp.get(port, "/v1/admin.json").status()).isEqualTo(200);
      assertThat(RawHttp.get(port, "/v1/admin").status()).isEqualTo(429);
    }
  }

  @Test
  void ownCaseSensitiveEnforcer_withHandlersIgnoringCase_stopsStartUpNamingTheRule() {
    assertThatThrownBy(
            () ->
                start(
                    WebApplicationType.SERVLET,
                    List.of(MvcParserIgnoringCase.class, OwnCaseSensitiveEnforcer.class)))
        .has(
            causedBy(
                "handler mapping 'requestMappingHandlerMapping' matches paths regardless of case",
                "rule 'own-admin' of the RateLimitEnforcer bean 'ownEnforcer'",
                "HttpRule.builder(\"own-admin\").ignoreCase(true)"));
  }
}
