package io.slidingwindow.testkit.redis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One real {@code redis-server} process (or a sentinel, {@code redis-server --sentinel}) on a free
 * port of {@code 127.0.0.1}, started for a test and killed by {@link #close()}.
 *
 * <p>The process runs from its own temporary directory (config file, {@code redis.log}, cluster or
 * sentinel state); data servers run with {@code --save "" --appendonly no}, so nothing is
 * persisted. The port is found by binding port 0 on the loopback address and releasing it; if the
 * server then fails to bind, {@link #start()} retries on a new port (at most 5 times). The port
 * stays this process's for its whole life: {@link #kill()} then {@link #restart()} come back on the
 * same port.
 *
 * <p>Every wait is bounded: start and restart wait at most {@link #START_BOUND} for {@code PING} to
 * answer {@code PONG}, {@link #kill()} and {@link #close()} at most 10 s for the process to exit,
 * each {@link #cli} call at most 5 s. A JVM shutdown hook kills processes that were never closed.
 * Thread-safe: the lifecycle methods are synchronized; reads are of immutable or volatile state.
 */
public final class RedisServerProcess implements AutoCloseable {

  /** How long {@link #start()} and {@link #restart()} wait for {@code PING} to answer. */
  public static final Duration START_BOUND = Duration.ofSeconds(10);

  private static final int START_ATTEMPTS = 5;

  /** Bound of one readiness probe: short, as a port squatter may accept and never answer. */
  private static final Duration PING_BOUND = Duration.ofSeconds(1);

  /** What kind of server to run; decides the config file and the command line. */
  enum Kind {
    STANDALONE,
    CLUSTER,
    SENTINEL
  }

  private final Kind kind;
  private final List<String> extraConfig;
  private final Path dir;
  private final Path log;
  private final Path config;
  private final Path output;
  private volatile int port;
  private volatile int clusterBusPort;
  private volatile Process process;
  private volatile boolean closed;

  private RedisServerProcess(Kind kind, List<String> extraConfig, Path dir) {
    this.kind = kind;
    this.extraConfig = List.copyOf(extraConfig);
    this.dir = dir;
    this.log = dir.resolve("redis.log");
    this.output = dir.resolve("output.log");
    this.config = dir.resolve(kind == Kind.SENTINEL ? "sentinel.conf" : "redis.conf");
  }

  /**
   * Starts a standalone {@code redis-server} on a free loopback port and waits until it answers
   * {@code PING}, at most {@link #START_BOUND} per attempt.
   *
   * @throws IllegalStateException if {@code redis-server} or {@code redis-cli} is not installed
   *     (the message says how to install them) or the server does not come up; nothing is left
   *     running in that case
   */
  public static RedisServerProcess start() {
    return start(Kind.STANDALONE, List.of());
  }

  /**
   * As {@link #start()}, with {@code configLines} added to the server's config file, such as {@code
   * rename-command EVAL ""}. The server must still answer an unauthenticated {@code PING} (set a
   * password afterwards with {@code CONFIG SET}).
   *
   * @throws IllegalStateException as {@link #start()}, also when the lines keep it from starting
   */
  public static RedisServerProcess startWithConfig(String... configLines) {
    return start(Kind.STANDALONE, List.of(configLines));
  }

  /**
   * Starts a server of {@code kind} whose config file also holds {@code extraConfig} lines, and
   * waits until it answers {@code PING}.
   */
  static RedisServerProcess start(Kind kind, List<String> extraConfig) {
    return start(kind, extraConfig, RedisTools::freePort);
  }

  /** As {@link #start(Kind, List)}, taking candidate ports from {@code ports}. */
  static RedisServerProcess start(Kind kind, List<String> extraConfig, IntSupplier ports) {
    RedisTools.refuseMarkedCaller();
    RedisTools.requireInstalled();
    Path dir;
    try {
      dir = Files.createTempDirectory("slidingwindow-redis-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create a temporary directory", e);
    }
    RedisTools.trackDir(dir);
    RedisServerProcess server = new RedisServerProcess(kind, extraConfig, dir);
    try {
      server.launchOnFreshPort(ports);
      return server;
    } catch (RuntimeException | Error e) {
      server.close();
      throw e;
    }
  }

  private void launchOnFreshPort(IntSupplier ports) {
    List<String> failures = new ArrayList<>();
    for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      port = ports.getAsInt();
      clusterBusPort = kind == Kind.CLUSTER ? ports.getAsInt() : 0;
      writeConfig();
      if (launchAndAwaitPing()) {
        return;
      }
      failures.add("port " + port + ": " + logs(3));
    }
    throw new IllegalStateException(
        "redis-server did not start after " + START_ATTEMPTS + " attempts: " + failures);
  }

  private void writeConfig() {
    List<String> lines = new ArrayList<>();
    lines.add("bind " + RedisTools.HOST);
    lines.add("port " + port);
    lines.add("daemonize no");
    lines.add("dir " + dir);
    lines.add("logfile " + log);
    if (kind == Kind.CLUSTER) {
      lines.add("cluster-enabled yes");
      lines.add("cluster-config-file nodes.conf");
      lines.add("cluster-port " + clusterBusPort);
    }
    lines.addAll(extraConfig);
    try {
      Files.write(config, lines, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write " + config, e);
    }
  }

  /** Starts the process; true once it answers PING, false (and dead) if it exited first. */
  private boolean launchAndAwaitPing() {
    List<String> command = new ArrayList<>();
    command.add(RedisTools.FLAVOR.serverBinary());
    command.add(config.toString());
    if (kind == Kind.SENTINEL) {
      command.add("--sentinel");
    } else {
      command.addAll(Arrays.asList("--save", "", "--appendonly", "no"));
    }
    Process started;
    try {
      started =
          new ProcessBuilder(command)
              .directory(dir.toFile())
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(output.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot run " + command, e);
    }
    RedisTools.track(started);
    process = started;
    RedisTools.await(
        "redis-server on port " + port + " answering PING",
        START_BOUND,
        () -> !started.isAlive() || "PONG".equals(cli(PING_BOUND, "PING")),
        () -> logs(10));
    if (!started.isAlive()) {
      RedisTools.untrack(started);
      return false;
    }
    return true;
  }

  /** The last {@code lines} lines of the log file and of the process output (config errors). */
  private String logs(int lines) {
    return "log: " + RedisTools.tail(log, lines) + " output: " + RedisTools.tail(output, lines);
  }

  /** The loopback address the server listens on, {@code "127.0.0.1"}. */
  public String host() {
    return RedisTools.HOST;
  }

  /** The server's TCP port on {@code 127.0.0.1}. */
  public int port() {
    return port;
  }

  /** The server as {@code "redis://127.0.0.1:<port>"}. */
  public String uri() {
    return "redis://" + RedisTools.HOST + ":" + port;
  }

  /** The server's log file, for diagnostics. */
  public Path logFile() {
    return log;
  }

  /** Whether the process is running (it may not answer yet, or any more). */
  public boolean isAlive() {
    Process current = process;
    return current != null && current.isAlive();
  }

  /**
   * Runs {@code redis-cli -e -h 127.0.0.1 -p <port> args...} and returns what it prints, trimmed,
   * as {@code redis-cli} prints it when its output is not a terminal (one value per line, no quotes
   * or type prefixes). Options may come first, e.g. {@code cli("-c", "SET", "k", "v")} to follow
   * cluster redirects.
   *
   * @throws IllegalStateException if Redis answers with an error (the message holds it, e.g. {@code
   *     WRONGTYPE ...}), cannot be reached, or {@code redis-cli} takes longer than 5 s
   */
  public String cli(String... args) {
    return cli(RedisTools.CLI_BOUND, args);
  }

  /**
   * How many times the server has run {@code command} (lower case, such as {@code "evalsha"}) since
   * it started or its statistics were reset ({@code CONFIG RESETSTAT}), from {@code INFO
   * commandstats}; 0 if never.
   */
  public long commandCalls(String command) {
    return commandStat(command, "calls");
  }

  /**
   * How many times the server refused to run {@code command} before running it (such as a multi-key
   * call answered TRYAGAIN during a slot migration), from {@code INFO commandstats}; 0 if never.
   */
  public long rejectedCalls(String command) {
    return commandStat(command, "rejected_calls");
  }

  private long commandStat(String command, String field) {
    Matcher line =
        Pattern.compile("cmdstat_" + Pattern.quote(command) + ":(\\S+)")
            .matcher(cli("INFO", "commandstats"));
    if (!line.find()) {
      return 0;
    }
    for (String pair : line.group(1).split(",", -1)) {
      if (pair.startsWith(field + "=")) {
        return Long.parseLong(pair.substring(field.length() + 1));
      }
    }
    return 0;
  }

  private String cli(Duration bound, String... args) {
    List<String> all = new ArrayList<>();
    all.addAll(List.of("-e", "-h", RedisTools.HOST, "-p", Integer.toString(port)));
    all.addAll(Arrays.asList(args));
    return RedisTools.redisCli(bound, all);
  }

  /**
   * Kills the process with SIGKILL, as a crash would, and waits at most 10 s for it to exit. The
   * port stays this server's: {@link #restart()} reuses it. Does nothing if it is not running.
   */
  public synchronized void kill() {
    Process current = process;
    if (current != null) {
      RedisTools.killHard(current);
    }
  }

  /**
   * Kills the process if it runs, starts it again on the same port from the same directory (a
   * cluster node keeps its identity, a sentinel its state, data is not kept) and waits until it
   * answers {@code PING}, at most {@link #START_BOUND} per attempt, 3 attempts.
   *
   * @throws IllegalStateException if it was closed or does not come back
   */
  public synchronized void restart() {
    if (closed) {
      throw new IllegalStateException("redis-server on port " + port + " is closed");
    }
    kill();
    for (int attempt = 1; attempt <= 3; attempt++) {
      if (launchAndAwaitPing()) {
        return;
      }
    }
    throw new IllegalStateException(
        "redis-server did not restart on port " + port + ": " + logs(10));
  }

  /** Kills the process (SIGKILL, waits at most 10 s) and deletes its directory. Idempotent. */
  @Override
  public synchronized void close() {
    closed = true;
    kill();
    RedisTools.deleteTree(dir);
  }

  @Override
  public String toString() {
    return "RedisServerProcess[" + kind + " " + uri() + (isAlive() ? "" : " dead") + "]";
  }
}
