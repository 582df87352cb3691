package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.redis.WithoutRedisServer;
import jakarta.servlet.Filter;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

/**
 * {@code slidingwindow.http.filter-dispatcher-types} on Spring Boot 4 and Tomcat: a filter before
 * the rate limit filter answers {@code sendError(401)}, and Boot's error page at {@code /error},
 * under a rule of one a minute, is counted (the second such request gets 429) when the list has
 * ERROR, and never seen by the filter (401 every time) with the default, request dispatches alone.
 */
@WithoutRedisServer
class FilterDispatcherTypesBoot4IT {

  @SpringBootConfiguration
  @EnableAutoConfiguration
  static class App {

    /** Before the rate limit filter (order 0), for request dispatches, as authentication is. */
    @Bean
    FilterRegistrationBean<Filter> authentication() {
      Filter authentication =
          (request, response, chain) -> {
            if (((HttpServletRequest) request).getRequestURI().startsWith("/private")) {
              ((HttpServletResponse) response).sendError(401);
              return;
            }
            chain.doFilter(request, response);
          };
      FilterRegistrationBean<Filter> registration = new FilterRegistrationBean<>(authentication);
      registration.setOrder(-50);
      registration.addUrlPatterns("/*");
      return registration;
    }
  }

  /** The statuses of three requests to private paths, on an application with {@code types}. */
  private static List<Integer> privateStatuses(String types) {
    Map<String, Object> properties = new HashMap<>();
    properties.put("slidingwindow.http.rules.error-page.paths", "/error");
    properties.put("slidingwindow.http.rules.error-page.key", "global");
    properties.put("slidingwindow.http.rules.error-page.limits[0].permits", 1);
    properties.put("slidingwindow.http.rules.error-page.limits[0].window", "1m");
    if (types != null) {
      properties.put("slidingwindow.http.filter-dispatcher-types", types);
    }
    try (ConfigurableApplicationContext app = Apps.startWithoutGateway(App.class, properties)) {
      assertThat(SpringBootVersion.getVersion()).startsWith("4.");
      URI uri = Apps.uri(app);
      List<Integer> statuses = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        statuses.add(Http.get(uri, "/private/" + i, null).statusCode());
      }
      return statuses;
    }
  }

  @Test
  void errorDispatches_theErrorPageAFilterBeforeSendsTo_isCounted() {
    assertThat(privateStatuses("request,error")).containsExactly(401, 429, 429);
  }

  @Test
  void requestDispatchesAlone_theErrorPageAFilterBeforeSendsTo_isNotSeen() {
    assertThat(privateStatuses(null)).containsExactly(401, 401, 401);
  }
}
