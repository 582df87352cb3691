package io.slidingwindow.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.RunnableScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The bound on a test JVM: the timer's task is taken from its queue and run by hand, so no test
 * waits for it.
 */
class ForkBoundTest {

  private final ScheduledThreadPoolExecutor timer = new ScheduledThreadPoolExecutor(1);
  private final List<String> halts = new ArrayList<>();
  private final ForkBound bound = new ForkBound(() -> timer, halts::add);

  @AfterEach
  void stop() {
    timer.shutdownNow();
  }

  @Test
  void sessionOpened_haltsAtTheBound_withEveryThreadsStack() {
    // This JVM's own bound, the default unless the build sets one.
    Duration expected = ForkBound.bound(System.getProperty("slidingwindow.test.forkBound"));

    bound.launcherSessionOpened(null);

    assertThat(timer.getQueue()).hasSize(1);
    RunnableScheduledFuture<?> due = (RunnableScheduledFuture<?>) timer.getQueue().peek();
    assertThat(due.getDelay(TimeUnit.MILLISECONDS))
        .isBetween(expected.minusSeconds(10).toMillis(), expected.toMillis());
    assertThat(halts).isEmpty();

    due.run();

    assertThat(halts).hasSize(1);
    assertThat(halts.get(0))
        .startsWith("Tests still running after " + expected + " (slidingwindow.test.forkBound)")
        .contains('"' + Thread.currentThread().getName() + "\" RUNNABLE")
        .contains(ForkBoundTest.class.getName() + ".sessionOpened_haltsAtTheBound_");
  }

  @Test
  void sessionClosed_beforeTheBound_neverHalts() {
    bound.launcherSessionOpened(null);
    RunnableScheduledFuture<?> due = (RunnableScheduledFuture<?>) timer.getQueue().peek();

    bound.launcherSessionClosed(null);

    assertThat(due.isCancelled()).isTrue();
    assertThat(timer.isShutdown()).isTrue();
    due.run();
    assertThat(halts).as("a cancelled task does nothing when run").isEmpty();
  }

  @Test
  void end_endsTheProcessesGiven() throws Exception {
    Process child = new ProcessBuilder("sleep", "60").start();
    try {
      ForkBound.end(Stream.of(child.toHandle()));

      assertThat(child.waitFor(10, TimeUnit.SECONDS)).as("ended within 10 s").isTrue();
    } finally {
      child.destroyForcibly();
    }
  }

  @Test
  void bound_readsAnIsoDurationAndRejectsOthersNamingTheProperty() {
    assertThat(ForkBound.bound(null)).isEqualTo(ForkBound.DEFAULT);
    assertThat(ForkBound.bound("PT4S")).isEqualTo(Duration.ofSeconds(4));
    assertThatThrownBy(() -> ForkBound.bound("soon"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "slidingwindow.test.forkBound must be an ISO-8601 duration such as PT20M, was 'soon'");
    assertThatThrownBy(() -> ForkBound.bound("PT0S"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("slidingwindow.test.forkBound must be positive, was PT0S");
  }
}
