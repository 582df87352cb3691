package io.slidingwindow.testkit;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Bounds a test JVM's run: if the tests of one launcher session (one fork) still run after {@code
 * slidingwindow.test.forkBound} (an ISO-8601 duration, {@link #DEFAULT} unless set), every thread's
 * stack is printed to the JVM's standard error, the processes it started (servers, browsers) are
 * ended, and the JVM halts with exit code 3, so that the build fails at once with a thread dump
 * rather than at its own limit, with nothing to show.
 *
 * <p>The bound is the JVM's own because neither of the test plugin's ways out holds against a
 * client library whose thread spins: its fork timeout is counted from the start of a test class as
 * its reports see it, and its shutdown runs the JVM's shutdown hooks, which close clients and may
 * wait on the spinning thread. {@link Runtime#halt} runs no hooks.
 *
 * <p>A module turns it on for its own tests by naming this class in {@code
 * src/test/resources/META-INF/services/org.junit.platform.launcher.LauncherSessionListener}. The
 * testkit does not register it itself: an application's tests that use the testkit keep their own
 * bounds.
 *
 * <p>For the project's own tests: not a supported API, and it may change without notice in any
 * release.
 */
public final class ForkBound implements LauncherSessionListener {

  /** The bound unless {@code slidingwindow.test.forkBound} is set: a fork here takes minutes. */
  public static final Duration DEFAULT = Duration.ofMinutes(20);

  private static final int EXIT_CODE = 3;

  private final Supplier<ScheduledExecutorService> timers;
  private final Consumer<String> halt;
  private ScheduledExecutorService timer;
  private ScheduledFuture<?> due;

  /** The listener the test platform loads: a daemon timer thread, and a real halt. */
  public ForkBound() {
    this(ForkBound::daemonTimer, ForkBound::printAndHalt);
  }

  /**
   * A listener with its own timer and its own way to halt, which gets the thread dump.
   *
   * @param timers makes the timer of each session
   * @param halt what happens at the bound
   */
  ForkBound(Supplier<ScheduledExecutorService> timers, Consumer<String> halt) {
    this.timers = timers;
    this.halt = halt;
  }

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    Duration bound = bound(System.getProperty("slidingwindow.test.forkBound"));
    timer = timers.get();
    due = timer.schedule(() -> halt.accept(dump(bound)), bound.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void launcherSessionClosed(LauncherSession session) {
    if (due != null) {
      due.cancel(false);
    }
    if (timer != null) {
      timer.shutdownNow();
    }
  }

  /**
   * The bound {@code value} names, {@link #DEFAULT} when it is null.
   *
   * @throws IllegalArgumentException naming the property if it is not a positive ISO-8601 duration
   */
  static Duration bound(String value) {
    if (value == null) {
      return DEFAULT;
    }
    Duration bound;
    try {
      bound = Duration.parse(value);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "slidingwindow.test.forkBound must be an ISO-8601 duration such as PT20M, was '"
              + value
              + "'",
          e);
    }
    if (bound.isNegative() || bound.isZero()) {
      throw new IllegalArgumentException(
          "slidingwindow.test.forkBound must be positive, was " + value);
    }
    return bound;
  }

  /** The message and every thread's stack, with the locks they wait on. */
  static String dump(Duration bound) {
    StringBuilder dump =
        new StringBuilder("Tests still running after ")
            .append(bound)
            .append(" (slidingwindow.test.forkBound); halting the JVM. Threads:\n");
    for (ThreadInfo thread : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
      dump.append('"').append(thread.getThreadName()).append("\" ").append(thread.getThreadState());
      if (thread.getLockName() != null) {
        dump.append(" on ").append(thread.getLockName());
      }
      if (thread.getLockOwnerName() != null) {
        dump.append(" owned by \"").append(thread.getLockOwnerName()).append('"');
      }
      dump.append('\n');
      for (StackTraceElement frame : thread.getStackTrace()) {
        dump.append("\tat ").append(frame).append('\n');
      }
    }
    return dump.toString();
  }

  private static ScheduledExecutorService daemonTimer() {
    return Executors.newSingleThreadScheduledExecutor(
        task -> {
          Thread thread = new Thread(task, "fork-bound");
          thread.setDaemon(true);
          return thread;
        });
  }

  private static void printAndHalt(String dump) {
    // The JVM's own standard error, not the test framework's captured stream, which the halt would
    // lose.
    PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, UTF_8);
    err.print(dump);
    err.flush();
    // No shutdown hook runs: the servers and browsers the tests started are ended here.
    end(ProcessHandle.current().descendants());
    Runtime.getRuntime().halt(EXIT_CODE);
  }

  /** Ends {@code processes} at once, as a halted JVM's hooks no longer can. */
  static void end(Stream<ProcessHandle> processes) {
    processes.forEach(ProcessHandle::destroyForcibly);
  }
}
