package io.slidingwindow.spring.boot.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Delayed;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class CleaningRateLimiterFactoryTest {

  private static final Limit LIMIT = Limit.of(10, Duration.ofSeconds(1));

  @Test
  void cleanUp_afterAFloodOfKeysHasExpired_emptiesEveryInMemoryTable() {
    FakeTicker ticker = new FakeTicker();
    CleaningRateLimiterFactory factory =
        new CleaningRateLimiterFactory(
            RateLimiterFactory.inMemory(ticker, 10_000), Duration.ZERO, null);
    KeyedRateLimiter<String> a = factory.create("a", List.of(LIMIT), false);
    KeyedRateLimiter<String> b = factory.create("b", List.of(LIMIT), false);
    for (int i = 0; i < 500; i++) {
      a.tryAcquire("made-up-" + i);
      b.tryAcquire("made-up-" + i);
    }
    ticker.advance(LIMIT.window().plus(LIMIT.precision()));
    // Without new traffic nothing else would shrink the tables.
    assertThat(a.toString()).contains("tracking 500 of");

    factory.cleanUp();

    assertThat(a.toString()).contains("tracking 0 of");
    assertThat(b.toString()).contains("tracking 0 of");
  }

  @Test
  void cleanUp_keysStillCounting_areKept() {
    FakeTicker ticker = new FakeTicker();
    CleaningRateLimiterFactory factory =
        new CleaningRateLimiterFactory(
            RateLimiterFactory.inMemory(ticker, 100), Duration.ZERO, null);
    KeyedRateLimiter<String> limiter = factory.create("a", List.of(LIMIT), false);
    limiter.tryAcquire("old");
    ticker.advance(Duration.ofMillis(500));
    limiter.tryAcquire("recent");
    ticker.advance(Duration.ofMillis(600));

    factory.cleanUp();

    assertThat(limiter.toString()).contains("tracking 1 of");
  }

  @Test
  void cleanUp_oneLimiterThrows_theOthersAreStillCleaned() {
    AtomicInteger cleaned = new AtomicInteger();
    Runnable fail =
        () -> {
          throw new IllegalStateException("down");
        };
    RateLimiterFactory fakes =
        (name, limits, countRefused) ->
            limiter(name.equals("broken") ? fail : cleaned::incrementAndGet);
    CleaningRateLimiterFactory factory = new CleaningRateLimiterFactory(fakes, Duration.ZERO, null);
    factory.create("first", List.of(LIMIT), false);
    factory.create("broken", List.of(LIMIT), false);
    factory.create("last", List.of(LIMIT), false);

    factory.cleanUp();

    assertThat(cleaned).hasValue(2);
  }

  @Test
  void constructor_positiveInterval_schedulesOneFixedDelayTaskUntilClosed() {
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    try {
      CleaningRateLimiterFactory factory =
          new CleaningRateLimiterFactory(
              RateLimiterFactory.inMemory(), Duration.ofSeconds(30), scheduler);

      assertThat(factory.scheduled()).isTrue();
      assertThat(scheduler.getQueue()).hasSize(1);
      long delaySeconds = ((Delayed) scheduler.getQueue().peek()).getDelay(TimeUnit.SECONDS);
      assertThat(delaySeconds).isBetween(25L, 30L);

      factory.close();

      assertThat(factory.scheduled()).isFalse();
      assertThat(scheduler.isShutdown()).isTrue();
      assertThat(scheduler.getQueue()).isEmpty();
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Test
  void constructor_zeroInterval_schedulesNothing() {
    ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1);
    try {
      CleaningRateLimiterFactory factory =
          new CleaningRateLimiterFactory(RateLimiterFactory.inMemory(), Duration.ZERO, scheduler);

      assertThat(factory.scheduled()).isFalse();
      assertThat(scheduler.getQueue()).isEmpty();
    } finally {
      scheduler.shutdownNow();
    }
  }

  @Test
  void every_negativeInterval_throwsNamingTheValue() {
    RateLimiterFactory inMemory = RateLimiterFactory.inMemory();
    assertThatThrownBy(() -> CleaningRateLimiterFactory.every(Duration.ofSeconds(-1), inMemory))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cleanupInterval must be zero (off) or positive, was PT-1S");
  }

  /** A limiter whose cleanUp runs {@code onCleanUp}; it decides nothing. */
  private static KeyedRateLimiter<String> limiter(Runnable onCleanUp) {
    return new KeyedRateLimiter<>() {
      @Override
      public boolean tryAcquire(String key, long permits) {
        throw new UnsupportedOperationException();
      }

      @Override
      public Decision decide(String key, long permits) {
        throw new UnsupportedOperationException();
      }

      @Override
      public List<Limit> limits() {
        return List.of(LIMIT);
      }

      @Override
      public void cleanUp() {
        onCleanUp.run();
      }
    };
  }
}
