package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.SpringBootVersion;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import reactor.core.publisher.Mono;

/**
 * {@code @RateLimit} on methods of a plain bean (not a controller) in two Spring Boot 4
 * applications that share one real redis-server: each method's window is shared between them, on
 * every return kind the aspect knows.
 */
class AopBoot4IT {

  private static RedisServerProcess redis;
  private static ConfigurableApplicationContext first;
  private static ConfigurableApplicationContext second;

  /**
   * A bean of an application: 2 calls per minute a name and method. The keys name the argument by
   * position: this module is compiled without {@code -parameters}.
   */
  public static class Quotes {

    @RateLimit(limits = "2/1m", key = "#p0", name = "boot4-quotes")
    public String quote(String name) {
      return "quote for " + name;
    }

    @RateLimit(limits = "2/1m", key = "#p0", name = "boot4-quotes-async")
    public CompletionStage<String> quoteAsync(String name) {
      return CompletableFuture.completedFuture("quote for " + name);
    }

    @RateLimit(
        limits = "2/1m",
        key = "#p0",
        name = "boot4-quotes-reactive",
        fallbackMethod = "later")
    public Mono<String> quoteReactive(String name) {
      return Mono.just("quote for " + name);
    }

    Mono<String> later(String name, RateLimitExceededException refusal) {
      return Mono.just("later, " + name);
    }
  }

  @SpringBootConfiguration
  @EnableAutoConfiguration
  @Import(Quotes.class)
  static class App {}

  @BeforeAll
  static void start() {
    redis = RedisServerProcess.start();
    Map<String, Object> properties =
        Apps.withRedis(redis, Map.of("spring.main.web-application-type", "none"));
    first = Apps.startWithoutGateway(App.class, properties);
    second = Apps.startWithoutGateway(App.class, properties);
  }

  @AfterAll
  static void stop() {
    second.close();
    first.close();
    redis.close();
  }

  @Test
  void plainMethod_twoBoot4Applications_shareItsWindowInRedis() {
    assertThat(SpringBootVersion.getVersion()).startsWith("4.");
    assertThat(first.getBeansOfType(RedisBackend.class)).hasSize(1);
    Quotes a = first.getBean(Quotes.class);
    Quotes b = second.getBean(Quotes.class);
    assertThat(AopUtils.isAopProxy(a)).isTrue();

    assertThat(a.quote("ann")).isEqualTo("quote for ann");
    assertThat(b.quote("ann")).isEqualTo("quote for ann");
    assertThatThrownBy(() -> a.quote("ann")).isInstanceOf(RateLimitExceededException.class);
    assertThatThrownBy(() -> b.quote("ann")).isInstanceOf(RateLimitExceededException.class);
    assertThat(b.quote("bob")).isEqualTo("quote for bob");
  }

  @Test
  void completionStageMethod_thirdCallAcrossBoth_failsTheStageNotTheCaller() throws Exception {
    Quotes a = first.getBean(Quotes.class);
    Quotes b = second.getBean(Quotes.class);

    assertThat(get(a.quoteAsync("cy"))).isEqualTo("quote for cy");
    assertThat(get(b.quoteAsync("cy"))).isEqualTo("quote for cy");
    CompletionStage<String> third = a.quoteAsync("cy");
    assertThatThrownBy(() -> get(third))
        .isInstanceOf(ExecutionException.class)
        .hasCauseInstanceOf(RateLimitExceededException.class);
  }

  @Test
  void monoMethod_thirdCallAcrossBoth_answersFromItsFallback() {
    Quotes a = first.getBean(Quotes.class);
    Quotes b = second.getBean(Quotes.class);

    assertThat(a.quoteReactive("dee").block()).isEqualTo("quote for dee");
    assertThat(b.quoteReactive("dee").block()).isEqualTo("quote for dee");
    assertThat(a.quoteReactive("dee").block()).isEqualTo("later, dee");
    assertThat(b.quoteReactive("eve").block()).isEqualTo("quote for eve");
  }

  private static String get(CompletionStage<String> stage) throws Exception {
    return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
  }
}
