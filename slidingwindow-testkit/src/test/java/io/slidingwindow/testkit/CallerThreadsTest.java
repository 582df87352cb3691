package io.slidingwindow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class CallerThreadsTest {

  private static final Duration BOUND = Duration.ofSeconds(30);

  @Test
  void threadsCallUntilStopped_andKeepWhatCallsThrow() {
    AtomicLong ran = new AtomicLong();
    CallerThreads load =
        CallerThreads.start(
            3,
            (t, i) -> {
              ran.incrementAndGet();
              if (i == 1) {
                throw new IllegalStateException("thread " + t);
              }
            });
    try {
      // Each thread's second call throws: wait for all three, since on a busy machine one thread
      // may not have been scheduled yet when the others have made a thousand calls.
      await().atMost(BOUND).until(() -> load.calls() > 1_000 && load.escaped().size() >= 3);
      assertThat(load.running()).isEqualTo(3);
    } finally {
      load.stop();
    }
    assertThat(load.running()).isZero();
    long callsAtStop = load.calls();
    assertThat(callsAtStop).isEqualTo(ran.get());
    // One call per thread threw (its second), and each was kept.
    assertThat(load.escaped())
        .hasSize(3)
        .allSatisfy(e -> assertThat(e).isInstanceOf(IllegalStateException.class))
        .extracting(Throwable::getMessage)
        .containsExactlyInAnyOrder("thread 0", "thread 1", "thread 2");
    load.stop(); // idempotent
    assertThat(load.calls()).isEqualTo(callsAtStop);
  }

  /**
   * The bound is what ends a load whose calls are answered at once: the threads stop on their own,
   * however many calls that took.
   */
  @Test
  void threadsStopOnTheirOwnWhenTheBoundPasses() {
    CallerThreads load = CallerThreads.start(2, Duration.ofMillis(200), (t, i) -> {});
    try {
      await().atMost(BOUND).until(() -> load.running() == 0);
      long calls = load.calls();
      assertThat(calls).isPositive();
      assertThat(load.calls()).isEqualTo(calls);
      assertThat(load.toString()).startsWith(calls + " calls, 0 of 2 threads calling");
    } finally {
      load.stop();
    }
  }

  @Test
  void aThreadThatStartsAfterTheBound_stillMakesItsFirstCall() {
    // A bound of a nanosecond has passed before either thread runs, as on a busy machine.
    CallerThreads load = CallerThreads.start(2, Duration.ofNanos(1), (t, i) -> {});
    try {
      await().atMost(BOUND).until(() -> load.running() == 0);
      assertThat(load.calls()).isEqualTo(2);
    } finally {
      load.stop();
    }
  }

  @Test
  void slowestCallIsTimed_andResetForAPhase() {
    Duration busy = Duration.ofMillis(200);
    CallerThreads load =
        CallerThreads.start(
            1,
            (t, i) -> {
              if (i == 0) { // the first call is busy for a while; the others return at once
                long end = System.nanoTime() + busy.toNanos();
                while (System.nanoTime() - end < 0) {
                  Thread.onSpinWait();
                }
              }
            });
    try {
      await().atMost(BOUND).until(() -> load.calls() > 10);
      assertThat(load.slowest()).isGreaterThanOrEqualTo(busy);
      assertThat(load.resetSlowest()).isGreaterThanOrEqualTo(busy);
      long calls = load.calls();
      await().atMost(BOUND).until(() -> load.calls() > calls + 10);
      assertThat(load.slowest()).isLessThan(busy);
    } finally {
      load.stop();
    }
  }

  /** A call that outlasts the wait fails the stop instead of hanging it. */
  @Test
  void stop_aThreadStuckInItsCall_failsAfterTheWait() throws InterruptedException {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    CallerThreads load =
        CallerThreads.start(
            1,
            (t, i) -> {
              entered.countDown();
              release.await(10, TimeUnit.SECONDS);
            });
    try {
      assertThat(entered.await(BOUND.toSeconds(), TimeUnit.SECONDS)).isTrue();
      assertThatThrownBy(() -> load.stop(Duration.ofMillis(100)))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("did not stop");
    } finally {
      release.countDown();
    }
  }

  @Test
  void rejectsBadArguments() {
    assertThatThrownBy(() -> CallerThreads.start(0, (t, i) -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("threads");
    assertThatThrownBy(() -> CallerThreads.start(1, Duration.ZERO, (t, i) -> {}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("bound");
    assertThatThrownBy(() -> CallerThreads.start(1, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("call");
  }
}
