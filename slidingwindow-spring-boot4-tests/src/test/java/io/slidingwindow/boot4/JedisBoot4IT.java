package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.io.InputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * Two instances of a Spring Boot 4 MVC application whose Spring Data Redis runs on Jedis ({@code
 * spring.data.redis.client-type=jedis}, Boot 4's Jedis 7.0, older than the 8.0 that {@code
 * slidingwindow-redis-jedis} is built on): the limiter borrows the application's pooled Jedis
 * connections, so both instances count one window in that real redis-server.
 */
class JedisBoot4IT {

  private static RedisServerProcess redis;
  private static ConfigurableApplicationContext first;
  private static ConfigurableApplicationContext second;

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Apps.ItemsAndOrders.class)
  static class App {}

  private static ConfigurableApplicationContext start() {
    return Apps.startWithoutGateway(
        App.class,
        Apps.withRedis(
            redis,
            Map.of(
                "spring.data.redis.client-type",
                "jedis",
                "slidingwindow.http.rules.items.paths",
                "/api/items/**",
                "slidingwindow.http.rules.items.limits[0].permits",
                3,
                "slidingwindow.http.rules.items.limits[0].window",
                "1m",
                "management.endpoint.health.show-details",
                "always")));
  }

  @BeforeAll
  static void startBoth() {
    redis = RedisServerProcess.start();
    first = start();
    second = start();
  }

  @AfterAll
  static void stopBoth() {
    try {
      first.close();
      second.close();
    } finally {
      redis.close();
    }
  }

  @Test
  void context_jedis7ConnectionFactory_isTheLimitersBackend() throws Exception {
    assertThat(jedisVersion()).startsWith("7.");
    assertThat(first.getBean(RedisConnectionFactory.class))
        .isInstanceOf(JedisConnectionFactory.class);
    assertThat(first.getBeansOfType(RedisBackend.class)).hasSize(1);
  }

  @Test
  void twoInstances_shareTheRulesWindowInTheApplicationsRedis() {
    List<URI> instances = List.of(Apps.uri(first), Apps.uri(second));
    List<Integer> statuses = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      statuses.add(Http.get(instances.get(i % 2), "/api/items/" + i, null).statusCode());
    }
    assertThat(statuses).containsExactly(200, 200, 200, 429, 429, 429);
    assertThat(redis.cli("--scan", "--pattern", "sw:items*"))
        .as("the rule's keys in the application's Redis")
        .isNotBlank();
    assertThat(Http.get(instances.get(1), "/actuator/health/slidingwindow", null).body())
        .contains("\"status\":\"UP\"");
  }

  private static String jedisVersion() throws Exception {
    try (InputStream in =
        JedisBoot4IT.class
            .getClassLoader()
            .getResourceAsStream("META-INF/maven/redis.clients/jedis/pom.properties")) {
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version");
    }
  }
}
