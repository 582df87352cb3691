package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Limit;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import io.slidingwindow.testkit.LogCapture;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

class RateLimitMethodPostProcessorTest {

  private final MethodContexts contexts = new MethodContexts();
  private final AnnotationConfigApplicationContext context = contexts.start(Quotes.class);
  private final Quotes quotes = context.getBean(Quotes.class);

  @AfterEach
  void close() {
    context.close();
  }

  @Test
  void plain_thirdCallOfAKey_throwsTheRefusalWithoutRunningTheMethod() {
    assertThat(quotes.plain("a")).isEqualTo("quote for a");
    contexts.ticker.advance(Duration.ofSeconds(4));
    assertThat(quotes.plain("a")).isEqualTo("quote for a");
    assertThat(quotes.plain("b")).isEqualTo("quote for b");

    assertThatThrownBy(() -> quotes.plain("a"))
        .isInstanceOfSatisfying(
            RateLimitExceededException.class,
            refusal -> {
              assertThat(refusal.rule()).isEqualTo("Quotes.plain");
              assertThat(refusal.decision().allowed()).isFalse();
              assertThat(refusal.decision().remaining()).isZero();
              assertThat(refusal.decision().limit()).isEqualTo(Limit.parse("2/10s"));
              assertThat(refusal.retryAfter())
                  .isEqualTo(refusal.decision().retryAfter())
                  .isBetween(Duration.ofSeconds(6), Duration.ofMillis(6010));
              assertThat(refusal).hasMessageContaining("Quotes.plain").hasNoCause();
              assertThat(refusal.getStackTrace()).isEmpty();
            });
    assertThat(quotes.runs()).isEqualTo(3);
    assertThat(contexts.events).endsWith("refused Quotes.plain");

    contexts.ticker.advance(Duration.ofMillis(6010));
    assertThat(quotes.plain("a")).isEqualTo("quote for a");
  }

  /**
   * Only an interface-based proxy that counts calls itself runs a call as a counted one; without
   * one, class-based beans do not look (a thread-local read on every call), so even a call made
   * inside one marked by hand counts.
   */
  @Test
  void plain_noInterfaceProxyCounts_doesNotLookForACountedCallAroundIt() throws Throwable {
    Nesting.Mark mark =
        new Nesting.Mark(
            context.getBean(RateLimitMethodPostProcessor.class),
            Quotes.class.getMethod("plain", String.class));

    Nesting.run(
        mark,
        () -> {
          quotes.plain("a");
          return quotes.plain("a");
        });

    assertThatThrownBy(() -> quotes.plain("a")).isInstanceOf(RateLimitExceededException.class);
    assertThat(quotes.runs()).isEqualTo(2);
  }

  @Test
  void plainWithFallback_refused_answersWithTheFallbackGivenTheRefusal() {
    quotes.plainOr("a");
    quotes.plainOr("a");
    contexts.ticker.advance(Duration.ofSeconds(3));

    assertThat(quotes.plainOr("a")).matches("later for a after 70\\d\\d ms");
    assertThat(quotes.runs()).isEqualTo(2);
  }

  @Test
  void stage_refused_completesExceptionallyWithoutThrowingOrRunning() {
    assertThat(quotes.stage("a").toCompletableFuture().join()).isEqualTo("quote for a");
    assertThat(quotes.stage("a").toCompletableFuture().join()).isEqualTo("quote for a");

    CompletionStage<String> refused = quotes.stage("a");

    assertThatThrownBy(() -> refused.toCompletableFuture().join())
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOfSatisfying(
            RateLimitExceededException.class,
            refusal -> assertThat(refusal.rule()).isEqualTo("Quotes.stage"));
    assertThat(quotes.runs()).isEqualTo(2);
  }

  @Test
  void stageWithFallback_refused_completesWithTheFallbacksResult() {
    quotes.stageOr("a").join();
    quotes.stageOr("a").join();

    CompletableFuture<String> refused = quotes.stageOr("a");

    assertThat(refused.join()).isEqualTo("later for a");
    assertThat(quotes.runs()).isEqualTo(2);
  }

  @Test
  void mono_decidedAtEachSubscription_refusalIsTheErrorSignal() {
    Mono<String> once = quotes.mono("a");
    assertThat(quotes.runs()).as("nothing runs before subscription").isEqualTo(0);

    assertThat(once.block()).isEqualTo("quote for a");
    assertThat(once.block()).isEqualTo("quote for a");
    Mono<String> refused =
        once.onErrorResume(RateLimitExceededException.class, e -> Mono.just(e.rule()));

    assertThat(refused.block()).isEqualTo("Quotes.mono");
    assertThat(quotes.runs()).isEqualTo(2);
    assertThat(quotes.mono("b").block()).isEqualTo("quote for b");
  }

  @Test
  void monoWithFallback_refused_emitsTheFallbacksValue() {
    quotes.monoOr("a").block();
    quotes.monoOr("a").block();

    assertThat(quotes.monoOr("a").block()).isEqualTo("later for a");
    assertThat(quotes.runs()).isEqualTo(2);
  }

  @Test
  void flux_refused_signalsTheRefusalAsItsError() {
    assertThat(quotes.flux("a").collectList().block()).containsExactly("a", "b");
    assertThat(quotes.flux("a").collectList().block()).containsExactly("a", "b");

    Flux<String> refused = quotes.flux("a");

    assertThatThrownBy(() -> refused.collectList().block())
        .isInstanceOf(RateLimitExceededException.class);
    assertThat(quotes.runs()).isEqualTo(2);
  }

  @Test
  void fluxWithFallback_refused_emitsTheFallbacksValues() {
    quotes.fluxOr("a").blockLast();
    quotes.fluxOr("a").blockLast();

    assertThat(quotes.fluxOr("a").collectList().block()).containsExactly("later");
    assertThat(quotes.runs()).isEqualTo(2);
  }

  @Test
  void keyThatThrows_countsUnderTheRulesGlobalKey_notExempt() {
    List<String> warnings;
    try (LogCapture log = LogCapture.atConfiguredLevel("io.slidingwindow.http.EnforcementCore")) {
      assertThat(quotes.order(null)).isEqualTo("ordered");
      warnings = log.records().stream().map(r -> r.getLevel() + " " + r.getMessage()).toList();
    }
    assertThat(warnings)
        .as("the log says where a call without a key counts: it has no client")
        .containsExactly(
            "WARNING rate limit rule 'orders' failed; its key function failed; the call"
                + " counts under the global key, shared by every call of the rule without a key"
                + " (logged once; later failures at DEBUG)");
    assertThat(quotes.order(new Quotes.Order(null))).isEqualTo("ordered");

    assertThatThrownBy(() -> quotes.order(null)).isInstanceOf(RateLimitExceededException.class);
    assertThat(quotes.order(new Quotes.Order("c"))).as("a key of its own").isEqualTo("ordered");
    assertThat(contexts.events).contains("error orders");
  }

  @Test
  void keyFromAPropertyOfAnArgument_countsEachValueApart() {
    quotes.order(new Quotes.Order("x"));
    quotes.order(new Quotes.Order("X"));

    assertThatThrownBy(() -> quotes.order(new Quotes.Order("x")))
        .isInstanceOf(RateLimitExceededException.class);
    assertThat(quotes.order(new Quotes.Order("y"))).isEqualTo("ordered");
  }

  @Test
  void noKey_countsEveryCallUnderOneKey() {
    for (int i = 0; i < 3; i++) {
      quotes.global();
    }
    assertThatThrownBy(quotes::global).isInstanceOf(RateLimitExceededException.class);
    assertThat(quotes.free("a")).isEqualTo("a");
  }

  /** A bean whose fallback is missing. */
  public static class MissingFallback {
    @RateLimit(limits = "1/1s", fallbackMethod = "nowhere")
    public String call(String a) {
      return a;
    }
  }

  /** A bean whose fallback does not take the refusal last. */
  public static class MismatchedFallback {
    @RateLimit(limits = "1/1s", fallbackMethod = "later")
    public String call(String a) {
      return a;
    }

    public String later(String a) {
      return a;
    }
  }

  /** A bean whose fallback returns another type. */
  public static class WrongReturnFallback {
    @RateLimit(limits = "1/1s", fallbackMethod = "later")
    public String call(String a) {
      return a;
    }

    public Integer later(String a, RateLimitExceededException e) {
      return 1;
    }
  }

  /** A bean whose key names no argument. */
  public static class UnknownArgument {
    @RateLimit(limits = "1/1s", key = "#nobody")
    public String call(String a) {
      return a;
    }
  }

  /** A bean whose key calls a method of an argument. */
  public static class CallingKey {
    @RateLimit(limits = "1/1s", key = "#a.getClass().getClassLoader()")
    public String call(Object a) {
      return "x";
    }
  }

  /** A bean whose key is a web form. */
  public static class WebKey {
    @RateLimit(limits = "1/1s", key = "header:X-Api-Key")
    public String call(String a) {
      return a;
    }
  }

  /** A bean that returns a publisher other than Mono and Flux. */
  public static class OtherPublisher {
    @RateLimit(limits = "1/1s")
    public org.reactivestreams.Publisher<String> call() {
      return Mono.just("x");
    }
  }

  /** A bean that returns the JDK's reactive publisher. */
  public static class FlowPublisher {
    @RateLimit(limits = "1/1s")
    public java.util.concurrent.Flow.Publisher<String> call() {
      return subscriber -> {};
    }
  }

  @Test
  void start_badAnnotations_failNamingTheBeanTheMethodAndTheAttribute() {
    record Case(Class<?> bean, String beanName, String attribute, String detail) {}
    for (Case c :
        List.of(
            new Case(
                MissingFallback.class, "missingFallback", "fallbackMethod 'nowhere'", "no method"),
            new Case(
                MismatchedFallback.class,
                "mismatchedFallback",
                "fallbackMethod 'later'",
                "(String, RateLimitExceededException) returning String"),
            new Case(
                WrongReturnFallback.class,
                "wrongReturnFallback",
                "fallbackMethod 'later'",
                "returning String"),
            new Case(UnknownArgument.class, "unknownArgument", ": key", "#nobody"),
            new Case(CallingKey.class, "callingKey", ": key", "getClass"),
            new Case(WebKey.class, "webKey", ": key", "needs a web request"),
            new Case(OtherPublisher.class, "otherPublisher", "Publisher", "declare Mono or Flux"),
            new Case(
                FlowPublisher.class,
                "flowPublisher",
                "java.util.concurrent.Flow$Publisher",
                "declare Mono or Flux"))) {
      assertThatThrownBy(() -> new MethodContexts().start(c.bean()).close())
          .as(c.bean().getSimpleName())
          .rootCause()
          .hasMessageContaining("bean '" + c.beanName() + "'")
          .hasMessageContaining(c.bean().getName() + ".call(")
          .hasMessageContaining(c.attribute())
          .hasMessageContaining(c.detail());
    }
  }
}
