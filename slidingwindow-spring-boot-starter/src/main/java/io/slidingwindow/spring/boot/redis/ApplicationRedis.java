package io.slidingwindow.spring.boot.redis;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisProblem;
import io.slidingwindow.redis.RedisUris;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.util.ClassUtils;

/**
 * The application's Spring Data Redis connection as the limiter's backend, through the client
 * adapter of the library the application's connection factory runs on: a Lettuce {@code
 * LettuceConnectionFactory} through {@code slidingwindow-redis-lettuce} (one connection of the
 * factory's own client), a {@code JedisConnectionFactory} through {@code slidingwindow-redis-jedis}
 * (the factory's own pooled connections, one per call). No second client or pool is opened. Where
 * it cannot be used (the adapter is not on the class path, another kind of factory, a Jedis too old
 * for the adapter), {@link #connect} throws a message that says what to do, so that the application
 * does not start counting in memory without a word.
 *
 * <p>Each client's code sits in a nested class of its own, loaded only when that client is used, so
 * that neither client library need be on the class path for the other.
 */
final class ApplicationRedis {

  static final String LETTUCE_FACTORY =
      "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";
  static final String JEDIS_FACTORY =
      "org.springframework.data.redis.connection.jedis.JedisConnectionFactory";
  static final String LETTUCE_ADAPTER = "io.slidingwindow.redis.lettuce.LettuceBackends";
  static final String JEDIS_ADAPTER = "io.slidingwindow.redis.jedis.JedisBackends";

  private ApplicationRedis() {}

  /** A backend on the application's connection, and the line that says which one it is. */
  record Connected(RedisBackend backend, String description, String client) {}

  /**
   * A backend on {@code factory}'s connections, starting the factory first if it has not started;
   * {@code loader} tells which adapters are on the class path.
   *
   * @throws IllegalStateException saying what to do, if the factory's client has no adapter on the
   *     class path, is of another kind, or is a Jedis too old for the adapter; or, saying why and
   *     naming the connection with its password masked, if Redis cannot be reached or refuses the
   *     credentials
   */
  static Connected connect(RedisConnectionFactory factory, ClassLoader loader) {
    String type = factory.getClass().getName();
    if (isA(factory, LETTUCE_FACTORY, loader)) {
      requireAdapter(
          LETTUCE_ADAPTER,
          "slidingwindow-redis-lettuce",
          "Lettuce",
          loader,
          ClassUtils.isPresent(JEDIS_ADAPTER, loader)
              ? ", or run Spring Data Redis on Jedis (spring.data.redis.client-type=jedis)"
              : "");
      String description = ApplicationRedisClients.Lettuce.describe(factory);
      return new Connected(
          explained(() -> ApplicationRedisClients.Lettuce.connect(factory), description),
          description,
          "Lettuce");
    }
    if (isA(factory, JEDIS_FACTORY, loader)) {
      requireAdapter(JEDIS_ADAPTER, "slidingwindow-redis-jedis", "Jedis", loader, "");
      String description = ApplicationRedisClients.Jedis.describe(factory);
      try {
        return new Connected(
            explained(
                () -> ApplicationRedisClients.Jedis.connect(factory, description), description),
            description,
            "Jedis");
      } catch (LinkageError e) {
        throw new IllegalStateException(
            "slidingwindow: the application's spring.data.redis connection runs on Jedis "
                + jedisVersion()
                + ", which slidingwindow-redis-jedis cannot run on (it is built on Jedis 8 and"
                + " tested on 7.0 too); set the jedis.version property (Spring Boot's dependency"
                + " management) to 8.0.2, or set slidingwindow.redis.uri for a client of the"
                + " limiter's own",
            e);
      }
    }
    throw new IllegalStateException(
        "slidingwindow: the application's Redis connection factory is a "
            + type
            + ", which the rate limiter cannot run on (it runs on Lettuce's and Jedis's);"
            + " set slidingwindow.redis.uri (or cluster.nodes, or sentinel.master) for a"
            + " connection of the limiter's own, declare a RedisBackend bean, or set"
            + " slidingwindow.redis.application-connection=false to keep the limits in memory,"
            + " each instance on its own");
  }

  private static boolean isA(Object factory, String className, ClassLoader loader) {
    return ClassUtils.isPresent(className, loader)
        && ClassUtils.resolveClassName(className, loader).isInstance(factory);
  }

  /**
   * Throws, saying what to add, unless the adapter {@code className} is on the class path; {@code
   * otherwise} is a further way out, or empty.
   */
  private static void requireAdapter(
      String className, String module, String client, ClassLoader loader, String otherwise) {
    if (!ClassUtils.isPresent(className, loader)) {
      throw new IllegalStateException(
          "slidingwindow: the application's spring.data.redis connection runs on "
              + client
              + ", but io.slidingwindow:"
              + module
              + " is not on the class path; add it to share the limits through that"
              + " connection"
              + otherwise
              + ", or set slidingwindow.redis.application-connection=false to keep them in"
              + " memory, each instance on its own");
    }
  }

  /** A connection attempt; fails with the client's exception. */
  @FunctionalInterface
  interface Attempt {
    RedisBackend run();
  }

  /**
   * Runs {@code attempt}, turning its failure into one that says why when Redis's reply in its
   * causes names a {@link RedisProblem} (wrong credentials, say), and names {@code description},
   * passwords masked.
   */
  private static RedisBackend explained(Attempt attempt, String description) {
    try {
      return attempt.run();
    } catch (RuntimeException e) {
      String why = RedisUris.mask(String.valueOf(e.getMessage()));
      for (Throwable t = e; t != null; t = t.getCause()) {
        RedisProblem problem = RedisProblem.of(t.getMessage());
        if (problem != null) {
          why = problem.explanation() + "; Redis replied: " + RedisUris.mask(t.getMessage());
          break;
        }
      }
      throw new IllegalStateException(
          "slidingwindow: cannot reach Redis through the application's spring.data.redis connection ("
              + description
              + "): "
              + why,
          e);
    }
  }

  /** The version of Jedis on the class path, read without loading its classes. */
  private static String jedisVersion() {
    try (InputStream in =
        ApplicationRedis.class
            .getClassLoader()
            .getResourceAsStream("META-INF/maven/redis.clients/jedis/pom.properties")) {
      if (in == null) {
        return "(version unknown)";
      }
      Properties properties = new Properties();
      properties.load(in);
      return properties.getProperty("version", "(version unknown)");
    } catch (IOException e) {
      return "(version unknown)";
    }
  }

  /**
   * What a factory connects to, for a log line: the deployment (standalone host and port, Sentinel
   * master and sentinels, or Cluster seed nodes), then the database, TLS, the user name and whether
   * a password is set. Never the password itself.
   */
  static String describe(
      RedisStandaloneConfiguration standalone,
      RedisSentinelConfiguration sentinel,
      RedisClusterConfiguration cluster,
      int database,
      boolean ssl) {
    StringBuilder text = new StringBuilder();
    String username;
    RedisPassword password;
    if (cluster != null) {
      text.append("cluster ").append(nodes(cluster.getClusterNodes()));
      username = cluster.getUsername();
      password = cluster.getPassword();
    } else if (sentinel != null) {
      String master = sentinel.getMaster() == null ? null : sentinel.getMaster().getName();
      text.append("sentinel master ")
          .append(master)
          .append(" via ")
          .append(nodes(sentinel.getSentinels()));
      username = sentinel.getUsername();
      password = sentinel.getPassword();
    } else {
      text.append("standalone ")
          .append(standalone.getHostName())
          .append(':')
          .append(standalone.getPort());
      username = standalone.getUsername();
      password = standalone.getPassword();
    }
    if (cluster == null && database != 0) {
      text.append(", database ").append(database);
    }
    if (ssl) {
      text.append(", TLS");
    }
    if (username != null) {
      text.append(", user ").append(username);
    }
    if (password != null && password.isPresent()) {
      text.append(", password ***");
    }
    return text.toString();
  }

  private static String nodes(Iterable<RedisNode> nodes) {
    List<String> names = new ArrayList<>();
    for (RedisNode node : nodes) {
      names.add(node.getHost() + ":" + node.getPort());
    }
    return names.toString();
  }
}
