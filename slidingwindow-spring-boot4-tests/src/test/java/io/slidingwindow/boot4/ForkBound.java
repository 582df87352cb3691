package io.slidingwindow.boot4;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Bounds a test JVM's run: if the tests of one launcher session (one fork) still run after {@code
 * slidingwindow.test.forkBound} (an ISO-8601 duration, ten minutes unless set), every thread's
 * stack is printed to the JVM's standard error and the JVM halts, so that the build fails at once
 * with a thread dump rather than waiting at its own limit.
 *
 * <p>A pass of this module takes a few minutes. The bound is the JVM's own because neither of the
 * plugin's ways out holds against a client library that spins: its fork timeout is counted from the
 * start of a test class as its reports see it, and its shutdown runs the JVM's shutdown hooks,
 * which close clients and may wait on the spinning lock. {@link Runtime#halt} runs no hooks.
 * Registered through {@code META-INF/services}.
 */
public final class ForkBound implements LauncherSessionListener {

  private static final Duration DEFAULT = Duration.ofMinutes(10);

  private ScheduledExecutorService timer;

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    Duration bound =
        Duration.parse(System.getProperty("slidingwindow.test.forkBound", DEFAULT.toString()));
    timer =
        Executors.newSingleThreadScheduledExecutor(
            task -> {
              Thread thread = new Thread(task, "fork-bound");
              thread.setDaemon(true);
              return thread;
            });
    var unused = timer.schedule(() -> halt(bound), bound.toMillis(), TimeUnit.MILLISECONDS);
  }

  @Override
  public void launcherSessionClosed(LauncherSession session) {
    if (timer != null) {
      timer.shutdownNow();
    }
  }

  private static void halt(Duration bound) {
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
    // The JVM's own standard error, not the test framework's captured stream, which would be lost
    // with the halt.
    PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, UTF_8);
    err.print(dump);
    err.flush();
    Runtime.getRuntime().halt(3);
  }
}
