package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.reactive.config.WebFluxConfigurer;
import org.springframework.web.servlet.config.annotation.PathMatchConfigurer;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;
import org.springframework.web.util.pattern.PathPatternParser;

/**
 * On Spring Boot 4 (Spring Framework 7), a rule for {@code /v1/admin} counts {@code /V1/ADMIN} and
 * {@code /v1/Admin} when the application's handlers match paths regardless of case: Spring MVC on
 * Tomcat with a path pattern parser that ignores case, and WebFlux on Reactor Netty told not to
 * match case-sensitively. The windows are in a real redis-server.
 */
class PathCaseBoot4IT {

  private static RedisServerProcess redis;

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

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Api.class)
  static class MvcApp {
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

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Api.class)
  static class WebFluxApp {
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

  @BeforeAll
  static void start() {
    redis = RedisServerProcess.start();
  }

  @AfterAll
  static void stop() {
    redis.close();
  }

  private static void assertEveryCasingCounted(Class<?> application, String rule, String type) {
    try (ConfigurableApplicationContext app =
        Apps.startWithoutGateway(
            application,
            Apps.withRedis(
                redis,
                Map.of(
                    "spring.main.web-application-type",
                    type,
                    "slidingwindow.http.rules." + rule + ".paths",
                    "/v1/admin",
                    "slidingwindow.http.rules." + rule + ".limits[0].permits",
                    1,
                    "slidingwindow.http.rules." + rule + ".limits[0].window",
                    "1m")))) {
      URI uri = Apps.uri(app);
      assertThat(Http.get(uri, "/V1/OTHER", null).statusCode())
          .as("%s: the handlers ignore case", type)
          .isEqualTo(200);
      assertThat(Http.get(uri, "/v1/admin", null).statusCode()).isEqualTo(200);
      assertThat(Http.get(uri, "/V1/ADMIN", null).statusCode())
          .as("%s: /V1/ADMIN reaches the handler of /v1/admin", type)
          .isEqualTo(429);
      assertThat(Http.get(uri, "/v1/Admin", null).statusCode())
          .as("%s: /v1/Admin reaches the handler of /v1/admin", type)
          .isEqualTo(429);
    }
  }

  @Test
  void mvcIgnoringCase_ruleCountsEveryCasing() {
    assertEveryCasingCounted(MvcApp.class, "admin-mvc", "servlet");
  }

  @Test
  void webFluxIgnoringCase_ruleCountsEveryCasing() {
    assertEveryCasingCounted(WebFluxApp.class, "admin-webflux", "reactive");
  }
}
