package io.slidingwindow.spring;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.cluster.RedisClusterClient;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisProblem;
import io.slidingwindow.redis.RedisUris;
import java.util.ArrayList;
import java.util.List;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisPassword;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The application's Spring Data Redis connection as the limiter's backend: a {@link RedisBackend}
 * on the factory's own Lettuce client, so no second client or thread pool is opened.
 */
final class ApplicationRedis {

  private ApplicationRedis() {}

  /**
   * What {@code factory} connects to, for a log line: the deployment (standalone host and port,
   * Sentinel master and sentinels, or Cluster seed nodes), then the database, TLS, the user name
   * and whether a password is set. Never the password itself.
   */
  static String describe(LettuceConnectionFactory factory) {
    StringBuilder text = new StringBuilder();
    String username;
    RedisPassword password;
    RedisClusterConfiguration cluster = factory.getClusterConfiguration();
    RedisSentinelConfiguration sentinel = factory.getSentinelConfiguration();
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
      RedisStandaloneConfiguration standalone = factory.getStandaloneConfiguration();
      text.append("standalone ")
          .append(standalone.getHostName())
          .append(':')
          .append(standalone.getPort());
      username = standalone.getUsername();
      password = standalone.getPassword();
    }
    if (cluster == null && factory.getDatabase() != 0) {
      text.append(", database ").append(factory.getDatabase());
    }
    if (factory.isUseSsl()) {
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

  /**
   * A backend on a connection of {@code factory}'s native Lettuce client, starting the factory
   * first if it has not started yet.
   *
   * @throws RedisConnectionException if the connection fails, saying why when Redis's reply names a
   *     {@link RedisProblem} (wrong credentials, say), and naming {@code description}
   */
  static RedisBackend connect(LettuceConnectionFactory factory, String description) {
    if (factory.getNativeClient() == null) {
      factory.start();
    }
    AbstractRedisClient client = factory.getRequiredNativeClient();
    try {
      if (client instanceof RedisClusterClient clusterClient) {
        return RedisBackend.of(clusterClient);
      }
      return RedisBackend.of((RedisClient) client);
    } catch (RuntimeException e) {
      String why = RedisUris.mask(String.valueOf(e.getMessage()));
      for (Throwable t = e; t != null; t = t.getCause()) {
        RedisProblem problem = RedisProblem.of(t.getMessage());
        if (problem != null) {
          why = problem.explanation() + "; Redis replied: " + RedisUris.mask(t.getMessage());
          break;
        }
      }
      throw new RedisConnectionException(
          "slidingwindow: cannot reach Redis through the application's spring.data.redis connection ("
              + description
              + "): "
              + why,
          e);
    }
  }

  private static String nodes(Iterable<RedisNode> nodes) {
    List<String> names = new ArrayList<>();
    for (RedisNode node : nodes) {
      names.add(node.getHost() + ":" + node.getPort());
    }
    return names.toString();
  }
}
