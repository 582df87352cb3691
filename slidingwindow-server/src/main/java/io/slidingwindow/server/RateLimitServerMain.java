package io.slidingwindow.server;

import io.lettuce.core.RedisConnectionException;
import io.slidingwindow.redis.RedisUris;
import io.slidingwindow.server.internal.DurationText;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;

/**
 * Starts the rate limit service until the process is stopped (Ctrl-C drains calls in flight).
 *
 * <p>Options: {@code --config PATH} (a YAML file or a directory of them; without it, a sample
 * configuration), {@code --host ADDRESS} (127.0.0.1), {@code --grpc-port N} (8081), {@code
 * --http-port N} (8080), {@code --reload-seconds N} (5; 0 turns reloading off), and where the
 * counts live instead of memory, at most one of: {@code --redis URI} (a standalone Redis), {@code
 * --redis-sentinel URI,URI... --redis-master NAME} (a master found through Sentinels), {@code
 * --redis-cluster URI,URI...} (a Redis Cluster through any of its nodes); with Redis, {@code
 * --redis-timeout DURATION} (how long a decision waits for Redis, such as {@code 200ms}; 50 ms by
 * default). Each can also be given as a system property: {@code slidingwindow.server.config},
 * {@code ...host}, {@code ...grpcPort}, {@code ...httpPort}, {@code ...reloadSeconds}, {@code
 * ...redis}, {@code ...redisSentinel}, {@code ...redisMaster}, {@code ...redisCluster}, {@code
 * ...redisTimeout}, {@code ...redisUsername}.
 *
 * <p>With Sentinel, the credentials of the master and its replicas: {@code --redis-username NAME}
 * (or {@code SLIDINGWINDOW_REDIS_USERNAME}) and the password in the environment variable {@code
 * SLIDINGWINDOW_REDIS_PASSWORD} (or {@code --redis-password}, which other users of the machine can
 * read in the process list); the Sentinels' own password in {@code
 * SLIDINGWINDOW_REDIS_SENTINEL_PASSWORD} (or {@code --redis-sentinel-password}). Standalone and
 * Cluster take credentials in their URIs. No password is ever printed.
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
    String sentinels = System.getProperty("slidingwindow.server.redisSentinel");
    String master = System.getProperty("slidingwindow.server.redisMaster");
    String cluster = System.getProperty("slidingwindow.server.redisCluster");
    String timeout = System.getProperty("slidingwindow.server.redisTimeout");
    String username = System.getProperty("slidingwindow.server.redisUsername");
    String password = null;
    String sentinelPassword = null;
    boolean credentialOptions = false;
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
        case "--redis-sentinel" -> sentinels = value;
        case "--redis-master" -> master = value;
        case "--redis-cluster" -> cluster = value;
        case "--redis-timeout" -> timeout = value;
        case "--redis-username" -> {
          username = value;
          credentialOptions = true;
        }
        case "--redis-password" -> {
          password = value;
          credentialOptions = true;
        }
        case "--redis-sentinel-password" -> {
          sentinelPassword = value;
          credentialOptions = true;
        }
        default -> usage("unknown option " + option);
      }
    }
    if (master != null && sentinels == null) {
      usage("--redis-master needs --redis-sentinel");
    }
    if (sentinels != null && master == null) {
      usage("--redis-sentinel needs --redis-master");
    }
    if ((credentialOptions || username != null) && sentinels == null) {
      usage(
          "--redis-username (-Dslidingwindow.server.redisUsername), --redis-password and"
              + " --redis-sentinel-password need --redis-sentinel; --redis and --redis-cluster"
              + " take credentials in their URIs (redis://user:password@host:port)");
    }
    if (sentinels != null) {
      username = orEnvironment(username, "SLIDINGWINDOW_REDIS_USERNAME");
      password = orEnvironment(password, "SLIDINGWINDOW_REDIS_PASSWORD");
      sentinelPassword = orEnvironment(sentinelPassword, "SLIDINGWINDOW_REDIS_SENTINEL_PASSWORD");
    }
    if (timeout != null && redis == null && sentinels == null && cluster == null) {
      usage("--redis-timeout needs --redis, --redis-sentinel or --redis-cluster");
    }
    Path path = config == null ? sampleConfig() : Path.of(config);
    RateLimitServer.Builder builder = RateLimitServer.builder();
    try {
      builder
          .config(path)
          .host(host)
          .grpcPort(number(grpcPort, "--grpc-port"))
          .httpPort(number(httpPort, "--http-port"))
          .reloadInterval(Duration.ofSeconds(number(reloadSeconds, "--reload-seconds")));
      if (redis != null) {
        builder.redis(redis);
      }
      if (sentinels != null) {
        builder.redisSentinel(
            list(sentinels),
            master,
            username,
            password == null ? null : password.toCharArray(),
            sentinelPassword == null ? null : sentinelPassword.toCharArray());
      }
      if (cluster != null) {
        builder.redisCluster(list(cluster));
      }
      if (timeout != null) {
        builder.redisCommandTimeout(DurationText.parse(timeout, "--redis-timeout"));
      }
    } catch (IllegalArgumentException | IllegalStateException e) {
      usage(e.getMessage());
      return;
    }
    RateLimitServer server;
    try {
      server = builder.start();
    } catch (ConfigException e) {
      System.err.println("Bad configuration: " + e.getMessage());
      System.exit(2);
      return;
    } catch (RedisConnectionException e) {
      System.err.println("Cannot reach Redis: " + RedisUris.mask(String.valueOf(e.getMessage())));
      System.exit(1);
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

  /** {@code value} if given, else the environment variable {@code name} if set and not empty. */
  private static String orEnvironment(String value, String name) {
    if (value != null) {
      return value;
    }
    String fromEnvironment = System.getenv(name);
    return fromEnvironment == null || fromEnvironment.isEmpty() ? null : fromEnvironment;
  }

  private static List<String> list(String commaSeparated) {
    if (commaSeparated == null) {
      return List.of();
    }
    return Arrays.stream(commaSeparated.split(",", -1)).map(String::trim).toList();
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
            + " [--http-port N] [--reload-seconds N] [--redis URI | --redis-sentinel URI,..."
            + " --redis-master NAME [--redis-username NAME] [--redis-password PASSWORD]"
            + " [--redis-sentinel-password PASSWORD] | --redis-cluster URI,...]"
            + " [--redis-timeout DURATION]");
    System.exit(2);
  }
}
