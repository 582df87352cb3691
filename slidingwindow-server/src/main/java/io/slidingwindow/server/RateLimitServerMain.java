package io.slidingwindow.server;

import io.slidingwindow.server.settings.EnvironmentNames;
import io.slidingwindow.server.settings.Settings;
import io.slidingwindow.server.settings.SettingsSources;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import sun.misc.Signal;

/**
 * Runs the rate limit service until the process is stopped (SIGTERM or Ctrl-C drain the calls in
 * flight; a second one while they drain stops at once): {@code java -jar
 * slidingwindow-server-VERSION.jar [--OPTION VALUE]...}. Every option also comes from the
 * environment ({@code SLIDINGWINDOW_GRPC_PORT} for {@code --grpc-port}) or a system property
 * ({@code -Dslidingwindow.server.grpcPort}); secrets (passwords, the admin token) only from the
 * environment, or a file that {@code SLIDINGWINDOW_..._FILE} names. A {@code SLIDINGWINDOW_}
 * variable that names no setting stops the start, as an unknown option does. {@code --help} lists
 * them all with their defaults, {@code --version} prints the version.
 *
 * <p>Exit status: 0 after {@code --help}, {@code --version} or a stop by SIGTERM or SIGINT; 143 or
 * 130 when a second SIGTERM or SIGINT cuts the drain short; 2 for bad settings or a bad
 * configuration; 1 when a port cannot be bound, a TLS file read, or Redis reached. Other signals
 * that end the JVM (SIGHUP) still stop the service gracefully, with the JVM's status (128 + the
 * signal's number).
 */
public final class RateLimitServerMain {

  private static final System.Logger LOG = System.getLogger(RateLimitServerMain.class.getName());

  private RateLimitServerMain() {}

  /** Runs the service; see the class comment. */
  public static void main(String[] args) throws InterruptedException {
    List<String> arguments = Arrays.asList(args);
    if (arguments.contains("--help") || arguments.contains("-h")) {
      System.out.print(help());
      return;
    }
    if (arguments.contains("--version")) {
      System.out.println("slidingwindow-server " + version());
      return;
    }
    Settings settings;
    try {
      EnvironmentNames.checkProperties(System.getProperties().stringPropertyNames());
      settings =
          SettingsSources.read(
                  RateLimitServer.builder(),
                  args,
                  System::getProperty,
                  environment(System.getenv(), System.getProperty("os.name", "")))
              .settings();
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println("slidingwindow-server: " + e.getMessage() + " (see --help)");
      System.exit(2);
      return;
    }
    LogLines.install(settings.logs());
    // Before the start, so that a signal in any moment after the ports open stops gracefully.
    AtomicReference<RateLimitServer> started = new AtomicReference<>();
    CountDownLatch asked = onSignals(started, settings.lifecycle().drainTimeout());
    RateLimitServer server;
    try {
      server = RateLimitServer.start(settings);
    } catch (ConfigException e) {
      LOG.log(Level.ERROR, "Bad configuration: " + e.getMessage());
      System.exit(2);
      return;
    } catch (IllegalArgumentException e) {
      LOG.log(Level.ERROR, "Bad settings: " + e.getMessage());
      System.exit(2);
      return;
    } catch (IOException e) {
      LOG.log(Level.ERROR, "Cannot start: " + e.getMessage());
      System.exit(1);
      return;
    }
    started.set(server);
    asked.await();
    int status = 0;
    try {
      stop(server);
    } catch (RuntimeException e) {
      LogLines.writeDirectly(
          RateLimitServerMain.class.getName(),
          java.util.logging.Level.SEVERE,
          "Stopping failed: " + e);
      status = 1;
    }
    System.exit(status);
  }

  /**
   * Makes SIGTERM and SIGINT count down the latch returned, on which the main thread stops the
   * service and exits 0; a second one while it drains exits at once, 128 + the signal's number
   * (143, 130). Any other end of the JVM that runs its shutdown hooks (SIGHUP, {@code System.exit})
   * stops the service in a hook, once {@code started} holds it, with the JVM's status.
   */
  private static CountDownLatch onSignals(
      AtomicReference<RateLimitServer> started, Duration drain) {
    AtomicBoolean stopping = new AtomicBoolean();
    CountDownLatch asked = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  stopping.set(true);
                  RateLimitServer server = started.get();
                  if (server != null) {
                    stop(server);
                  }
                },
                "slidingwindow-server-shutdown"));
    for (String name : List.of("TERM", "INT")) {
      try {
        Signal.handle(
            new Signal(name),
            signal -> {
              if (stopping.compareAndSet(false, true)) {
                LOG.log(
                    Level.INFO,
                    "SIG{0}: stopping; calls in flight have up to {1} to end (a second SIGTERM or"
                        + " SIGINT stops at once)",
                    name,
                    text(drain));
                asked.countDown();
              } else {
                // A halt: an exit would wait for the shutdown hook, which waits for the drain.
                LogLines.writeDirectly(
                    RateLimitServerMain.class.getName(),
                    java.util.logging.Level.WARNING,
                    "SIG"
                        + name
                        + " while stopping: exiting at once, without waiting for the calls in"
                        + " flight");
                Runtime.getRuntime().halt(128 + signal.getNumber());
              }
            });
      } catch (IllegalArgumentException e) {
        LOG.log(Level.WARNING, "SIG" + name + " cannot be handled here: " + e.getMessage());
      }
    }
    return asked;
  }

  /** {@code drain} as the settings spell it: {@code 10s}, {@code 500ms}. */
  private static String text(Duration drain) {
    long millis = drain.toMillis();
    return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
  }

  /** Stops {@code server}, if not stopped before, and writes the line that says so. */
  private static void stop(RateLimitServer server) {
    if (server.stop()) {
      LogLines.writeDirectly(
          RateLimitServer.class.getName(), java.util.logging.Level.INFO, RateLimitServer.STOPPED);
    }
  }

  /** The usage text: every option, its variable and its default. */
  static String help() {
    return "usage: java -jar slidingwindow-server-"
        + version()
        + ".jar [--OPTION VALUE]...\n\n"
        + "A rate limit service for Envoy (envoy.service.ratelimit.v3) with sliding windows.\n"
        + "Each option may also be given as the environment variable shown, or as the system\n"
        + "property slidingwindow.server.<option in camelCase>; an argument wins over a property,\n"
        + "a property over the environment. Secrets come from the environment only, or from the\n"
        + "file that VARIABLE_FILE names. A SLIDINGWINDOW_ variable that is none of these stops\n"
        + "the start. Durations: 500ms, 10s, 5m, 1h, PT1M30S.\n\n"
        + SettingsSources.help()
        + "\n  --help                             this text\n"
        + "  --version                          the version\n";
  }

  /** The version this jar was built as. */
  static String version() {
    Properties properties = new Properties();
    try (InputStream in = RateLimitServerMain.class.getResourceAsStream("version.properties")) {
      if (in != null) {
        properties.load(in);
      }
    } catch (IOException e) {
      return "unknown";
    }
    return properties.getProperty("version", "unknown");
  }

  /**
   * The process's environment as the settings read it: on Windows, where a variable's name has no
   * case ({@link System#getenv(String)} ignores it), every name in upper case, so that {@code
   * Slidingwindow_Redis} is the setting's variable there as it is for the system.
   */
  static Map<String, String> environment(Map<String, String> variables, String osName) {
    if (!osName.startsWith("Windows")) {
      return variables;
    }
    Map<String, String> upper = new HashMap<>();
    variables.forEach((name, value) -> upper.put(name.toUpperCase(Locale.ROOT), value));
    return upper;
  }
}
