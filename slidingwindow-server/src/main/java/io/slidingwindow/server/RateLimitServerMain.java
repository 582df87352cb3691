package io.slidingwindow.server;

import io.slidingwindow.server.settings.Settings;
import io.slidingwindow.server.settings.SettingsSources;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;

/**
 * Runs the rate limit service until the process is stopped (SIGTERM or Ctrl-C drain the calls in
 * flight): {@code java -jar slidingwindow-server-VERSION.jar [--OPTION VALUE]...}. Every option
 * also comes from the environment ({@code SLIDINGWINDOW_GRPC_PORT} for {@code --grpc-port}) or a
 * system property ({@code -Dslidingwindow.server.grpcPort}); secrets (passwords, the admin token)
 * only from the environment, or a file that {@code SLIDINGWINDOW_..._FILE} names. {@code --help}
 * lists them all with their defaults, {@code --version} prints the version.
 *
 * <p>Exit status: 0 after {@code --help}, {@code --version} or a stop; 2 for bad settings or a bad
 * configuration; 1 when a port cannot be bound, a TLS file read, or Redis reached.
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
      settings =
          SettingsSources.read(RateLimitServer.builder(), args, System::getProperty, System::getenv)
              .settings();
    } catch (IllegalArgumentException | IllegalStateException e) {
      System.err.println("slidingwindow-server: " + e.getMessage() + " (see --help)");
      System.exit(2);
      return;
    }
    LogLines.install(settings.logs());
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
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  server.close();
                  stopped.countDown();
                },
                "slidingwindow-server-shutdown"));
    stopped.await();
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
        + "file that VARIABLE_FILE names. Durations: 500ms, 10s, 5m, 1h, PT1M30S.\n\n"
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
}
