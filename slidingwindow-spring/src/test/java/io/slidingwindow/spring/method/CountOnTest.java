package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import reactor.core.Disposable;

/** {@code @RateLimit(countOn = ...)} on each kind of return: only failed calls count. */
class CountOnTest {

  private final MethodContexts contexts = new MethodContexts();
  private final AnnotationConfigApplicationContext context = contexts.start(Logins.class);
  private final Logins logins = context.getBean(Logins.class);

  @AfterEach
  void close() {
    context.close();
  }

  /** What a call of {@code kind} ended in: its value, or the simple name of what it threw. */
  private String call(String kind, String user, String password) {
    try {
      Object value =
          switch (kind) {
            case "plain" -> logins.plain(user, password);
            case "stage" -> logins.stage(user, password).toCompletableFuture().join();
            case "mono" -> logins.mono(user, password).block(Duration.ofSeconds(10));
            case "flux" ->
                String.join(
                    ",", logins.flux(user, password).collectList().block(Duration.ofSeconds(10)));
            default -> throw new IllegalArgumentException(kind);
          };
      return String.valueOf(value);
    } catch (RuntimeException e) {
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      return cause.getClass().getSimpleName();
    }
  }

  private static String welcome(String kind, String user) {
    return (kind.equals("flux") ? "checking," : "") + "welcome " + user;
  }

  @ParameterizedTest
  @ValueSource(strings = {"plain", "stage", "mono", "flux"})
  void countOn_onlyCountedFailuresFillTheWindow_thenEveryCallIsRefused(String kind) {
    String welcome = welcome(kind, "ann");
    for (int i = 0; i < 10; i++) {
      assertThat(call(kind, "ann", "good")).isEqualTo(welcome);
      assertThat(call(kind, "ann", "down")).isEqualTo("IllegalStateException");
    }
    assertThat(call(kind, "ann", "wrong")).isEqualTo("BadPassword");
    assertThat(call(kind, "ann", "locked")).isEqualTo("LockedOut");
    contexts.ticker.advance(Duration.ofSeconds(4));
    assertThat(call(kind, "ann", "wrong")).isEqualTo("BadPassword");

    assertThat(call(kind, "ann", "wrong")).isEqualTo("RateLimitExceededException");
    assertThat(call(kind, "ann", "good")).isEqualTo("RateLimitExceededException");
    assertThat(call(kind, "bob", "good")).isEqualTo(welcome(kind, "bob"));

    contexts.ticker.advance(Duration.ofMillis(6010)); // the first two failures leave the window
    assertThat(call(kind, "ann", "good")).isEqualTo(welcome);
    assertThat(call(kind, "ann", "wrong")).isEqualTo("BadPassword");
    assertThat(call(kind, "ann", "wrong")).isEqualTo("BadPassword");
    assertThat(call(kind, "ann", "wrong")).isEqualTo("RateLimitExceededException");
  }

  @Test
  void countOn_aSubscriptionCancelledBeforeItsEnd_staysCounted() {
    Disposable first = logins.hanging("ann").subscribe();
    first.dispose();

    assertThatThrownBy(() -> logins.hanging("ann").block(Duration.ofSeconds(10)))
        .isInstanceOf(RateLimitExceededException.class);
  }

  /** countStatuses belongs to web handlers. */
  public static class Misplaced {
    @RateLimit(limits = "3/10s", countStatuses = "400-599")
    public String login() {
      return "ok";
    }
  }

  /** countOn and counting refused attempts together. */
  public static class Penalized {
    @RateLimit(limits = "3/10s", countOn = RuntimeException.class, countRefusedAttempts = true)
    public String login() {
      return "ok";
    }
  }

  @Test
  void countStatuses_onABeanMethod_stopsStartUpNamingTheMethod() {
    assertThatThrownBy(() -> new MethodContexts().start(Misplaced.class))
        .hasStackTraceContaining("Misplaced.login()")
        .hasStackTraceContaining("countStatuses is for web handlers")
        .hasStackTraceContaining("[400-599]");
  }

  @Test
  void countOn_withCountRefusedAttempts_stopsStartUpNamingTheMethod() {
    assertThatThrownBy(() -> new MethodContexts().start(Penalized.class))
        .hasStackTraceContaining("Penalized.login()")
        .hasStackTraceContaining("counts refused attempts");
  }
}
