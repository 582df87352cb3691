package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Future;
import java.util.concurrent.FutureTask;
import kotlin.coroutines.Continuation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.scheduling.annotation.Async;
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

  /** countOn on a Future: its failures come after it returns. */
  public static class FutureLogin {
    @RateLimit(limits = "1/1h", countOn = Logins.BadPassword.class)
    public Future<String> call(String user) {
      return new FutureTask<>(() -> Logins.check(user, "wrong"));
    }
  }

  /** countOn on a Kotlin suspend function, as it is compiled. */
  public static class SuspendLogin {
    @RateLimit(limits = "1/1h", countOn = Logins.BadPassword.class)
    public Object call(String user, Continuation<? super String> continuation) {
      return user;
    }
  }

  /** countOn on an @Async method. */
  public static class AsyncLogin {
    @Async
    @RateLimit(limits = "1/1h", countOn = Logins.BadPassword.class)
    public void call(String user) {
      Logins.check(user, "wrong");
    }
  }

  /** countOn on a method of an @Async class. */
  @Async
  public static class AsyncType {
    @RateLimit(limits = "1/1h", countOn = Logins.BadPassword.class)
    public void call(String user) {
      Logins.check(user, "wrong");
    }
  }

  @Test
  void countOn_onAMethodWhoseCallEndsLater_stopsStartUpNamingTheBeanTheMethodAndTheType() {
    record Case(Class<?> bean, String beanName, String why) {}
    for (Case c :
        List.of(
            new Case(FutureLogin.class, "futureLogin", "returns java.util.concurrent.Future"),
            new Case(
                SuspendLogin.class,
                "suspendLogin",
                "Kotlin suspend function (it returns java.lang.Object"),
            new Case(AsyncLogin.class, "asyncLogin", "@Async: it returns void"),
            new Case(AsyncType.class, "asyncType", "@Async: it returns void"))) {
      assertThatThrownBy(() -> new MethodContexts().start(c.bean()).close())
          .as(c.bean().getSimpleName())
          .rootCause()
          .hasMessageContaining("bean '" + c.beanName() + "'")
          .hasMessageContaining(c.bean().getName() + ".call(String")
          .hasMessageContaining("countOn cannot be applied")
          .hasMessageContaining(c.why())
          .hasMessageContaining(
              "countOn supports methods that return a value or void (not asynchronously),"
                  + " CompletionStage, CompletableFuture, Mono or Flux");
    }
  }

  /** The same methods without countOn: every call counts when it starts. */
  public static class UpFront {
    @RateLimit(limits = "1/1h")
    public Future<String> future() {
      return new FutureTask<>(() -> "x");
    }

    @RateLimit(limits = "1/1h")
    public Object suspending(String user, Continuation<? super String> continuation) {
      return user;
    }

    @Async
    @RateLimit(limits = "1/1h")
    public void later() {}
  }

  @Test
  void noCountOn_onAMethodWhoseCallEndsLater_countsEachCallUpFront() {
    try (AnnotationConfigApplicationContext started = new MethodContexts().start(UpFront.class)) {
      UpFront upFront = started.getBean(UpFront.class);
      assertThat(upFront.future()).isNotNull();
      upFront.suspending("ann", null);
      upFront.later();

      assertThatThrownBy(upFront::future).isInstanceOf(RateLimitExceededException.class);
      assertThatThrownBy(() -> upFront.suspending("ann", null))
          .isInstanceOf(RateLimitExceededException.class);
      assertThatThrownBy(upFront::later).isInstanceOf(RateLimitExceededException.class);
    }
  }

  /** countOn on a method declared to return Object, which may return a result still to come. */
  public static class Untyped {
    @RateLimit(limits = "1/1h", countOn = Logins.BadPassword.class)
    public Object login(String password) {
      return password.equals("good")
          ? "welcome"
          : CompletableFuture.supplyAsync(() -> Logins.check("ann", password));
    }
  }

  @Test
  void countOn_resultStillToComeFromAnUntypedMethod_staysCounted() {
    try (AnnotationConfigApplicationContext started = new MethodContexts().start(Untyped.class)) {
      Untyped untyped = started.getBean(Untyped.class);
      assertThat(untyped.login("good")).isEqualTo("welcome");
      assertThat(untyped.login("good")).isEqualTo("welcome");

      assertThat(untyped.login("wrong")).isInstanceOf(CompletableFuture.class);

      assertThatThrownBy(() -> untyped.login("good"))
          .isInstanceOf(RateLimitExceededException.class);
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
