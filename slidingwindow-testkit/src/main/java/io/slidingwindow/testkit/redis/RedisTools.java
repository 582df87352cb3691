package io.slidingwindow.testkit.redis;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * Shared plumbing of the Redis process harness: loopback ports, {@code redis-cli} calls with a time
 * bound, bounded waits, and a JVM shutdown hook that kills whatever is still running.
 */
final class RedisTools {

  static final String HOST = "127.0.0.1";
  static final Duration CLI_BOUND = Duration.ofSeconds(5);
  static final Duration PROCESS_EXIT_BOUND = Duration.ofSeconds(10);
  private static final Duration POLL_INTERVAL = Duration.ofMillis(50);
  private static final int RECENT_PORTS = 256;

  private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();
  private static final Set<Path> DIRS = ConcurrentHashMap.newKeySet();
  private static final Deque<Integer> RECENT = new ArrayDeque<>();
  private static volatile boolean hookInstalled;
  private static volatile String missing;

  private RedisTools() {}

  /** The server this JVM's tests start, from {@link ServerFlavor#current()}. */
  static final ServerFlavor FLAVOR = ServerFlavor.current();

  /**
   * Throws {@link IllegalStateException} while a class marked {@link WithoutRedisServer} runs, and
   * when such a class, or one nested in it, is on the calling thread's stack: such a test is left
   * out of the Valkey pass, so it must not start a server.
   */
  static void refuseMarkedCaller() {
    Class<?> running = markedRunning;
    if (running != null) {
      throw new IllegalStateException(
          running.getName()
              + " is marked @WithoutRedisServer, which leaves it out of the Valkey pass, but a Redis"
              + " server is being started while it runs: remove the mark");
    }
    StackWalker.getInstance(StackWalker.Option.RETAIN_CLASS_REFERENCE)
        .walk(
            frames ->
                frames
                    .map(StackWalker.StackFrame::getDeclaringClass)
                    .filter(RedisTools::isMarked)
                    .findFirst())
        .ifPresent(
            marked -> {
              throw new IllegalStateException(
                  marked.getName()
                      + " is marked @WithoutRedisServer, which leaves it out of the Valkey pass,"
                      + " but it starts a Redis server: remove the mark");
            });
  }

  /** The outermost marked test class running now, or null; see {@link MarkedClassGuard}. */
  private static volatile Class<?> markedRunning;

  private static int markedDepth;

  static synchronized void markedClassStarted(Class<?> testClass) {
    if (markedDepth++ == 0) {
      markedRunning = testClass;
    }
  }

  static synchronized void markedClassEnded() {
    if (markedDepth > 0 && --markedDepth == 0) {
      markedRunning = null;
    }
  }

  private static boolean isMarked(Class<?> type) {
    for (Class<?> c = type; c != null; c = c.getEnclosingClass()) {
      if (c.isAnnotationPresent(WithoutRedisServer.class)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Throws {@link IllegalStateException} with the install command when the flavor's server or
   * client binary is not on the {@code PATH}.
   */
  static void requireInstalled() {
    if (missing == null) {
      missing = missingTools(FLAVOR, System.getenv("PATH"));
    }
    if (!missing.isEmpty()) {
      throw notInstalled(FLAVOR, missing);
    }
  }

  /** The names of {@code flavor}'s server and client binaries not found on {@code pathVariable}. */
  static String missingTools(ServerFlavor flavor, String pathVariable) {
    List<String> absent = new ArrayList<>();
    for (String tool : List.of(flavor.serverBinary(), flavor.cliBinary())) {
      if (!onPath(pathVariable, tool)) {
        absent.add(tool);
      }
    }
    return String.join(", ", absent);
  }

  /** The error for {@code missing} tools of {@code flavor}, saying how to install them. */
  static IllegalStateException notInstalled(ServerFlavor flavor, String missing) {
    return new IllegalStateException(
        missing
            + " not found on PATH; the Redis tests start real server processes ("
            + ServerFlavor.PROPERTY
            + "="
            + flavor.name().toLowerCase(Locale.ROOT)
            + "). Install them with: "
            + flavor.installCommand()
            + " (or run scripts/test.sh, which installs them)");
  }

  private static boolean onPath(String pathVariable, String tool) {
    if (pathVariable == null) {
      return false;
    }
    for (String dir : pathVariable.split(File.pathSeparator, -1)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  /**
   * A loopback port that was free a moment ago: bound on {@code 127.0.0.1} port 0 and released.
   * Ports handed out recently by this JVM are skipped, so one cluster never gets the same port
   * twice; another process may still take it, which callers handle by retrying with a new port.
   */
  static int freePort() {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    for (int attempt = 0; attempt < 50; attempt++) {
      int port;
      try (ServerSocket socket = new ServerSocket()) {
        socket.setReuseAddress(false);
        socket.bind(new InetSocketAddress(loopback, 0), 1);
        port = socket.getLocalPort();
      } catch (IOException e) {
        throw new UncheckedIOException("cannot bind a loopback port", e);
      }
      synchronized (RECENT) {
        if (!RECENT.contains(port)) {
          RECENT.addLast(port);
          if (RECENT.size() > RECENT_PORTS) {
            RECENT.removeFirst();
          }
          return port;
        }
      }
    }
    throw new IllegalStateException("no fresh loopback port after 50 attempts");
  }

  /** Whether {@code port} on {@code 127.0.0.1} can be bound right now. */
  static boolean portIsFree(int port) {
    try (ServerSocket socket = new ServerSocket()) {
      socket.setReuseAddress(true);
      socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Runs {@code redis-cli} with {@code args} and returns its standard output, trimmed. Throws
   * {@link IllegalStateException} when it exits non-zero or runs longer than {@code bound} (it is
   * then killed).
   */
  static String redisCli(Duration bound, List<String> args) {
    List<String> command = new ArrayList<>();
    command.add(FLAVOR.cliBinary());
    command.addAll(args);
    Path out = null;
    Process process = null;
    try {
      out = Files.createTempFile("redis-cli-", ".out");
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .start();
      if (!process.waitFor(bound.toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
        process.waitFor(PROCESS_EXIT_BOUND.toMillis(), TimeUnit.MILLISECONDS);
        throw new IllegalStateException(command + " took longer than " + bound);
      }
      String text = Files.readString(out, StandardCharsets.UTF_8).trim();
      if (process.exitValue() != 0) {
        throw new IllegalStateException(
            command + " exited with " + process.exitValue() + ": " + text);
      }
      return text;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      if (process != null) {
        process.destroyForcibly();
      }
      throw new IllegalStateException("interrupted while running " + command, e);
    } finally {
      if (out != null) {
        try {
          Files.deleteIfExists(out);
        } catch (IOException ignored) {
          // a leftover temp file of a few bytes is harmless
        }
      }
    }
  }

  /**
   * Polls {@code condition} every 50 ms until it returns {@code true}, for at most {@code bound}.
   * Exceptions thrown by the condition count as "not yet". On timeout throws {@link
   * IllegalStateException} naming {@code what} and the {@code diagnostics} of that moment.
   */
  static void await(
      String what, Duration bound, Callable<Boolean> condition, Supplier<String> diagnostics) {
    try {
      Awaitility.await(what)
          .atMost(bound)
          .pollDelay(Duration.ZERO)
          .pollInterval(POLL_INTERVAL)
          .pollInSameThread()
          .ignoreExceptions()
          .until(condition);
    } catch (ConditionTimeoutException e) {
      throw new IllegalStateException(
          what + " did not happen within " + bound + "; " + diagnostics.get(), e);
    }
  }

  /** The last {@code lines} lines of {@code file}, or a note that it cannot be read. */
  static String tail(Path file, int lines) {
    try {
      List<String> all = Files.readAllLines(file, StandardCharsets.UTF_8);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(no log at " + file + ")";
    }
  }

  /** Tracks {@code process} so the shutdown hook kills it if nobody else does. */
  static void track(Process process) {
    installHook();
    LIVE.add(process);
  }

  /** How many processes and directories the shutdown hook would clean up now. */
  static int tracked() {
    return LIVE.size() + DIRS.size();
  }

  static void untrack(Process process) {
    LIVE.remove(process);
  }

  /** Tracks {@code dir} so the shutdown hook deletes it if nobody else does. */
  static void trackDir(Path dir) {
    installHook();
    DIRS.add(dir);
  }

  /** Deletes {@code dir} and everything below it, best effort, and stops tracking it. */
  static void deleteTree(Path dir) {
    DIRS.remove(dir);
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> walk = Files.walk(dir)) {
      walk.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException | UncheckedIOException ignored) {
      // files vanishing under the walk are what we want anyway
    }
  }

  /** Kills {@code process} with SIGKILL and waits (bounded) for it to exit. */
  static void killHard(Process process) {
    process.destroyForcibly();
    try {
      process.waitFor(PROCESS_EXIT_BOUND.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    untrack(process);
  }

  private static void installHook() {
    if (hookInstalled) {
      return;
    }
    synchronized (RedisTools.class) {
      if (hookInstalled) {
        return;
      }
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    for (Process process : new HashSet<>(LIVE)) {
                      process.destroyForcibly();
                    }
                    for (Path dir : new HashSet<>(DIRS)) {
                      deleteTree(dir);
                    }
                  },
                  "redis-process-reaper"));
      hookInstalled = true;
    }
  }
}
