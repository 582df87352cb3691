package io.slidingwindow.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;

/**
 * Starts the rate limit service until the process is stopped (Ctrl-C drains calls in flight).
 *
 * <p>Options: {@code --config PATH} (a YAML file or a directory of them; without it, a sample
 * configuration), {@code --host ADDRESS} (127.0.0.1), {@code --grpc-port N} (8081), {@code
 * --http-port N} (8080), {@code --reload-seconds N} (5; 0 turns reloading off), {@code --redis URI}
 * (counts in a standalone Redis instead of memory). Each can also be given as a system property:
 * {@code slidingwindow.server.config}, {@code ...host}, {@code ...grpcPort}, {@code ...httpPort},
 * {@code ...reloadSeconds}, {@code ...redis}.
 */
public final class RateLimitServerMain {

  private RateLimitServerMain() {}

  /** Runs the service; see the class comment for the options. */
  public static void main(String[] args) throws IOException, InterruptedException {
    String config = System.getProperty("slidingwindow.server.config");
    String host = System.getProperty("slidingwindow.server.host", "127.0.0.1");
    String grpcPort = System.getProperty("slidingwindow.server.grpcPort", "8081");
    String httpPort = System.getProperty("slidingwindow.server.httpPort", "8080");
    String reloadSeconds = System.getProperty("slidingwindow.server.reloadSeconds", "5");
    String redis = System.getProperty("slidingwindow.server.redis");
    for (int i = 0; i < args.length; i++) {
      String option = args[i];
      if (i + 1 >= args.length) {
        usage("option " + option + " needs a value");
      }
      String value = args[++i];
      switch (option) {
        case "--config" -> config = value;
        case "--host" -> host = value;
        case "--grpc-port" -> grpcPort = value;
        case "--http-port" -> httpPort = value;
        case "--reload-seconds" -> reloadSeconds = value;
        case "--redis" -> redis = value;
        default -> usage("unknown option " + option);
      }
    }
    Path path = config == null ? sampleConfig() : Path.of(config);
    RateLimitServer server;
    try {
      RateLimitServer.Builder builder =
          RateLimitServer.builder()
              .config(path)
              .host(host)
              .grpcPort(number(grpcPort, "grpc port"))
              .httpPort(number(httpPort, "http port"))
              .reloadInterval(Duration.ofSeconds(number(reloadSeconds, "reload seconds")));
      if (redis != null) {
        builder.redis(redis);
      }
      server = builder.start();
    } catch (ConfigException e) {
      System.err.println("Bad configuration: " + e.getMessage());
      System.exit(2);
      return;
    } catch (IllegalArgumentException e) {
      usage(e.getMessage());
      return;
    }
    System.out.println(
        "Rate limit service: gRPC on "
            + host
            + ":"
            + server.grpcPort()
            + ", HTTP on http://"
            + host
            + ":"
            + server.httpPort()
            + " (/v1/decide, /metrics, /v1/stats); config "
            + path);
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

  private static Path sampleConfig() throws IOException {
    Path file = Files.createTempFile("slidingwindow-sample-", ".yaml");
    file.toFile().deleteOnExit();
    try (InputStream in = RateLimitServerMain.class.getResourceAsStream("sample-config.yaml")) {
      if (in == null) {
        throw new IOException("the sample configuration is missing from the jar");
      }
      Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
    }
    return file;
  }

  private static int number(String text, String what) {
    try {
      return Integer.parseInt(text.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(what + " must be a whole number, was '" + text + "'");
    }
  }

  private static void usage(String problem) {
    System.err.println(problem);
    System.err.println(
        "usage: RateLimitServerMain [--config PATH] [--host ADDRESS] [--grpc-port N]"
            + " [--http-port N] [--reload-seconds N] [--redis URI]");
    System.exit(2);
  }
}
