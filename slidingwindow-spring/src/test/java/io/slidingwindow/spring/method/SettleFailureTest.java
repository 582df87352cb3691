package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import io.slidingwindow.testkit.LogCapture;
import io.slidingwindow.testkit.RefundFailingLimiter;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * With {@code countOn}, a call's reservation is given back when the call ends in anything else;
 * when that refund throws an {@link Error} (a backend's class that failed to load), the call still
 * ends, on every kind of return: in the method's own failure, the refund's Error suppressed in it,
 * or, if the method returned normally, in the refund's Error. The permits stay counted.
 */
class SettleFailureTest {

  /** What every refund of a rule named {@code refund-fails...} throws. */
  private static final NoClassDefFoundError REFUND_ERROR =
      new NoClassDefFoundError("the backend's client");

  private final MethodContexts contexts = new MethodContexts();
  private AnnotationConfigApplicationContext context;

  /** The in-memory backend, except that the rules named {@code refund-fails...} cannot refund. */
  private RateLimiterFactory refundFailing() {
    RateLimiterFactory memory = RateLimiterFactory.inMemory(contexts.ticker, 10_000);
    return (name, limits, countRefused) -> {
      KeyedRateLimiter<String> windows = memory.create(name, limits, countRefused);
      if (!name.startsWith("refund-fails")) {
        return windows;
      }
      return new RefundFailingLimiter(windows, REFUND_ERROR, RefundFailingLimiter.Async.THROWN);
    };
  }

  @AfterEach
  void close() {
    if (context != null) {
      context.close();
    }
  }

  private <T> T start(Class<T> bean, Class<?>... others) {
    contexts.factory = refundFailing();
    Class<?>[] beans = new Class<?>[others.length + 1];
    beans[0] = bean;
    System.arraycopy(others, 0, beans, 1, others.length);
    context = contexts.start(beans);
    return context.getBean(bean);
  }

  /** Each kind of return, counting only {@link Logins.BadPassword}; the refunds all throw. */
  public static class Accounts {

    @RateLimit(name = "refund-fails-plain", limits = "2/10s", countOn = Logins.BadPassword.class)
    public String plain(String password) {
      return Logins.check("ann", password);
    }

    @RateLimit(name = "refund-fails-stage", limits = "2/10s", countOn = Logins.BadPassword.class)
    public CompletionStage<String> stage(String password) {
      return CompletableFuture.supplyAsync(() -> Logins.check("ann", password));
    }

    /** Throws when called instead of returning a failed stage. */
    @RateLimit(
        name = "refund-fails-stage-throws",
        limits = "2/10s",
        countOn = Logins.BadPassword.class)
    public CompletableFuture<String> stageThrows(String password) {
      return CompletableFuture.completedFuture(Logins.check("ann", password));
    }

    @RateLimit(name = "refund-fails-mono", limits = "2/10s", countOn = Logins.BadPassword.class)
    public Mono<String> mono(String password) {
      return Mono.fromCallable(() -> Logins.check("ann", password));
    }

    /** Throws when called instead of returning a failing Mono. */
    @RateLimit(
        name = "refund-fails-mono-throws",
        limits = "2/10s",
        countOn = Logins.BadPassword.class)
    public Mono<String> monoThrows(String password) {
      return Mono.just(Logins.check("ann", password));
    }

    @RateLimit(name = "refund-fails-flux", limits = "2/10s", countOn = Logins.BadPassword.class)
    public Flux<String> flux(String password) {
      return Flux.just("checking")
          .concatWith(Mono.fromCallable(() -> Logins.check("ann", password)));
    }

    /** Throws when called instead of returning a failing Flux. */
    @RateLimit(
        name = "refund-fails-flux-throws",
        limits = "2/10s",
        countOn = Logins.BadPassword.class)
    public Flux<String> fluxThrows(String password) {
      return Flux.just(Logins.check("ann", password));
    }
  }

  /**
   * What a call of {@code kind} ended in: its value, or what it threw (the cause of a {@code
   * CompletionException} or {@code ExecutionException}); an asynchronous end is waited for 10 s.
   */
  private static Object outcome(Accounts accounts, String kind, String password) {
    try {
      return switch (kind) {
        case "plain" -> accounts.plain(password);
        case "stage" -> accounts.stage(password).toCompletableFuture().get(10, TimeUnit.SECONDS);
        case "stageThrows" -> accounts.stageThrows(password).get(10, TimeUnit.SECONDS);
        case "mono" -> accounts.mono(password).block(Duration.ofSeconds(10));
        case "monoThrows" -> accounts.monoThrows(password).block(Duration.ofSeconds(10));
        case "flux" ->
            String.join(",", accounts.flux(password).collectList().block(Duration.ofSeconds(10)));
        case "fluxThrows" ->
            String.join(
                ",", accounts.fluxThrows(password).collectList().block(Duration.ofSeconds(10)));
        default -> throw new IllegalArgumentException(kind);
      };
    } catch (ExecutionException | CompletionException e) {
      return e.getCause();
    } catch (Throwable e) {
      return e;
    }
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"plain", "stage", "stageThrows", "mono", "monoThrows", "flux", "fluxThrows"})
  void methodFails_andTheRefundThrowsAnError_theMethodsFailureIsTheOutcome_theErrorSuppressed(
      String kind) {
    Accounts accounts = start(Accounts.class);

    Object outcome = outcome(accounts, kind, "down"); // not counted: its permit is given back

    assertThat(outcome).as("what the call ended in").isInstanceOf(IllegalStateException.class);
    assertThat((Throwable) outcome).hasMessage("the user store is down");
    assertThat(((Throwable) outcome).getSuppressed()).contains(REFUND_ERROR);
    assertThat(((Throwable) outcome).getSuppressed()).doesNotContain((Throwable) outcome);
    // the refund failed, so the permit stays counted
    assertThat(outcome(accounts, kind, "down")).isInstanceOf(IllegalStateException.class);
    assertThat(outcome(accounts, kind, "down")).isInstanceOf(RateLimitExceededException.class);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {"plain", "stage", "stageThrows", "mono", "monoThrows", "flux", "fluxThrows"})
  void methodReturns_andTheRefundThrowsAnError_theCallEndsInTheError(String kind) {
    Accounts accounts = start(Accounts.class);

    assertThat(outcome(accounts, kind, "good")).as("what the call ended in").isSameAs(REFUND_ERROR);
    assertThat(outcome(accounts, kind, "good")).isSameAs(REFUND_ERROR);
    assertThat(outcome(accounts, kind, "good")).isInstanceOf(RateLimitExceededException.class);
  }

  /** What the methods of {@link Unsuppressing} fail with: it keeps no suppressed exceptions. */
  private static final RuntimeException UNSUPPRESSING =
      new RuntimeException("the user store is down", null, false, false) {};

  /** Counts only BadPassword; its refunds throw; fails with {@link #UNSUPPRESSING}. */
  public static class Unsuppressing {
    @RateLimit(name = "refund-fails-plain", limits = "2/10s", countOn = Logins.BadPassword.class)
    public String plain() {
      throw UNSUPPRESSING;
    }

    @RateLimit(name = "refund-fails-stage", limits = "2/10s", countOn = Logins.BadPassword.class)
    public CompletionStage<String> stage() {
      return CompletableFuture.supplyAsync(
          () -> {
            throw UNSUPPRESSING;
          });
    }

    @RateLimit(name = "refund-fails-mono", limits = "2/10s", countOn = Logins.BadPassword.class)
    public Mono<String> mono() {
      return Mono.error(UNSUPPRESSING);
    }
  }

  /**
   * A failure that keeps no suppressed exceptions (built with suppression disabled) cannot carry
   * the refund's Error: the call still ends in it, unchanged, and the refund's Error is logged at
   * WARNING instead of lost.
   */
  @ParameterizedTest
  @ValueSource(strings = {"plain", "stage", "mono"})
  void methodFailsWithoutSuppression_andTheRefundThrows_theFailureUnchanged_theErrorLogged(
      String kind) {
    Unsuppressing methods = start(Unsuppressing.class);

    try (LogCapture log = LogCapture.of(LimitedMethod.class.getName())) {
      Object outcome =
          switch (kind) {
            case "plain" -> catchThrowable(methods::plain);
            case "stage" ->
                catchThrowable(() -> methods.stage().toCompletableFuture().join()).getCause();
            case "mono" -> catchThrowable(() -> methods.mono().block(Duration.ofSeconds(10)));
            default -> throw new IllegalArgumentException(kind);
          };

      assertThat(outcome).as("what the call ended in").isSameAs(UNSUPPRESSING);
      assertThat(UNSUPPRESSING.getSuppressed()).isEmpty();
      assertThat(log.records())
          .as("the refund's Error, logged")
          .filteredOn(record -> record.getThrown() == REFUND_ERROR)
          .singleElement()
          .extracting(LogRecord::getLevel)
          .isEqualTo(Level.WARNING);
    }
  }

  /**
   * A logging handler that fails (a full disk, a broken appender) while the refund's Error is
   * logged: the call still ends in the method's failure, unchanged. Before, what the handler threw
   * left the settling, in place of the method's failure (a plain call ended in it).
   */
  @ParameterizedTest
  @ValueSource(strings = {"plain", "stage", "mono"})
  void methodFailsWithoutSuppression_refundThrows_andTheLogFails_theFailureUnchanged(String kind) {
    Unsuppressing methods = start(Unsuppressing.class);
    Logger logger = Logger.getLogger(LimitedMethod.class.getName());
    AtomicInteger published = new AtomicInteger();
    Handler failing =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            published.incrementAndGet();
            throw new IllegalStateException("the log's disk is full");
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    logger.addHandler(failing);
    try {
      Object outcome =
          switch (kind) {
            case "plain" -> catchThrowable(methods::plain);
            case "stage" ->
                catchThrowable(
                        () -> methods.stage().toCompletableFuture().get(10, TimeUnit.SECONDS))
                    .getCause();
            case "mono" -> catchThrowable(() -> methods.mono().block(Duration.ofSeconds(10)));
            default -> throw new IllegalArgumentException(kind);
          };

      assertThat(published).as("the handler was asked to publish").hasPositiveValue();
      assertThat(outcome).as("what the call ended in").isSameAs(UNSUPPRESSING);
    } finally {
      logger.removeHandler(failing);
    }
  }

  /**
   * Logging that throws an Error while {@code ended} logs a refund failure it cannot attach: {@code
   * ended} still returns the method's failure, as {@code settleAsync} promises never to throw.
   */
  @Test
  void loggingThatThrows_endedStillReturnsTheFailure() {
    Logger logger = Logger.getLogger(LimitedMethod.class.getName());
    Handler failing =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            throw new NoClassDefFoundError("the log's appender");
          }

          @Override
          public void flush() {}

          @Override
          public void close() {}
        };
    logger.addHandler(failing);
    try {
      assertThat(LimitedMethod.ended(UNSUPPRESSING, REFUND_ERROR)).isSameAs(UNSUPPRESSING);
    } finally {
      logger.removeHandler(failing);
    }
  }

  /** Fails each call with the same instance, which keeps suppressed exceptions. */
  public static class Shared {
    static final RuntimeException DOWN = new IllegalStateException("the user store is down");

    @RateLimit(name = "refund-fails-shared", limits = "5/10s", countOn = Logins.BadPassword.class)
    public String plain() {
      throw DOWN;
    }
  }

  /**
   * A failure instance that the method throws on each call (a constant) carries the refund's Error
   * once, however often its refund fails with that same Error. Before, it gained one more copy of
   * the Error on each call: [REFUND_ERROR, REFUND_ERROR] after two.
   */
  @Test
  void sharedFailure_sameRefundErrorTwice_keepsOneSuppressed() {
    Shared methods = start(Shared.class);

    Throwable first = catchThrowable(methods::plain);
    Throwable second = catchThrowable(methods::plain);

    assertThat(first).isSameAs(Shared.DOWN);
    assertThat(second).isSameAs(Shared.DOWN);
    assertThat(Shared.DOWN.getSuppressed()).containsExactly(REFUND_ERROR);
  }

  /** Settling the same failure twice with the same refund Error keeps one suppressed. */
  @Test
  void settlingTwice_keepsOneSuppressed() {
    RuntimeException down = new IllegalStateException("down");
    NoClassDefFoundError refund = new NoClassDefFoundError("client");

    LimitedMethod.ended(down, refund);
    LimitedMethod.ended(new CompletionException(down), refund);

    assertThat(down.getSuppressed()).containsExactly(refund);
  }

  /** Counts only BadPassword; its refunds throw. */
  public static class Store {
    @RateLimit(name = "refund-fails-store", limits = "100/10s", countOn = Logins.BadPassword.class)
    public String read(String password) {
      return Logins.check("ann", password);
    }
  }

  /** Counts the store's outages, through the store's own limited method. */
  public static class Front {
    private final Store store;

    public Front(Store store) {
      this.store = store;
    }

    @RateLimit(name = "outages", limits = "1/10s", countOn = IllegalStateException.class)
    public String read(String password) {
      return store.read(password);
    }
  }

  @Test
  void innerRefundThrowsAnError_theOuterMethodSeesTheInnerFailure_andCountsIt() {
    Front front = start(Front.class, Store.class);

    Throwable first = catchThrowable(() -> front.read("down"));
    Throwable second = catchThrowable(() -> front.read("down"));

    assertThat(first).isInstanceOf(IllegalStateException.class);
    assertThat(first.getSuppressed()).contains(REFUND_ERROR);
    assertThat(second)
        .as("the outage the outer rule counts, not passed on as the inner refund's Error")
        .isInstanceOf(RateLimitExceededException.class);
  }
}
