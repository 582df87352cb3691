package io.slidingwindow.redis.jedis;

import redis.clients.jedis.CommandObject;
import redis.clients.jedis.Connection;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.exceptions.JedisAskDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.exceptions.JedisRedirectionException;
import redis.clients.jedis.executors.CommandExecutor;
import redis.clients.jedis.providers.ClusterConnectionProvider;

/**
 * Runs a command on the Cluster node that owns its keys, following MOVED and ASK (answers of a node
 * that did not run the command), and never sending it again after a connection failure or a
 * timeout, which Jedis's own cluster executor does (up to its {@code maxAttempts}): such a command
 * may have run. The caller's retry rules decide everything else. Thread-safe.
 */
final class ClusterExecutor implements CommandExecutor {

  /** The most redirects one command follows. */
  static final int MAX_REDIRECTS = 5;

  private final ClusterConnectionProvider provider;

  ClusterExecutor(ClusterConnectionProvider provider) {
    this.provider = provider;
  }

  @Override
  public <T> T executeCommand(CommandObject<T> command) {
    HostAndPort target = null;
    boolean asking = false;
    for (int redirects = 0; ; redirects++) {
      try (Connection connection =
          target == null
              ? provider.getConnection(command.getArguments())
              : provider.getConnection(target)) {
        if (asking) {
          connection.executeCommand(Protocol.Command.ASKING);
        }
        return connection.executeCommand(command);
      } catch (JedisRedirectionException e) {
        if (redirects >= MAX_REDIRECTS) {
          throw e;
        }
        if (e instanceof JedisMovedDataException) {
          provider.renewSlotCache();
        }
        target = e.getTargetNode();
        asking = e instanceof JedisAskDataException;
      }
    }
  }

  @Override
  public void close() {
    provider.close();
  }
}
