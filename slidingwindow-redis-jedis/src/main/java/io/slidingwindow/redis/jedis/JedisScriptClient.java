package io.slidingwindow.redis.jedis;

import io.slidingwindow.redis.ScriptClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.commands.ScriptingKeyCommands;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * {@link ScriptClient} over Jedis: a shared client ({@link UnifiedJedis}, which pools its own
 * connections), or connections borrowed one per call and closed after it (a pooled {@link Jedis}
 * then goes back to its pool, or is dropped if the call broke it). Jedis blocks the calling thread
 * until Redis answers or the client's socket timeout passes, so every stage returned here is
 * already complete. Jedis reports Redis's error replies as {@link JedisDataException}s (NOSCRIPT as
 * its subclass {@code JedisNoScriptException}, a refused AUTH as {@code
 * JedisAccessControlException}, possibly inside the failure to get a pooled connection); anything
 * else, such as a {@code JedisConnectionException} for a socket timeout, is a call without an
 * answer. Thread-safe as far as the client or the source of connections is (a pool is).
 */
final class JedisScriptClient implements ScriptClient {

  /** Runs one command on a connection of the client's: the shared one, or a borrowed one. */
  @FunctionalInterface
  interface Connections {
    Object run(Function<ScriptingKeyCommands, Object> command);
  }

  private final Connections connections;

  /** Reads a Cluster's slot map again (blocking); null when not Cluster or not possible. */
  private final Runnable slotRefresh;

  private final boolean cluster;

  /** Whether {@link #connections} finds the master again on a READONLY reply. */
  private final boolean findsMasterAgain;

  private JedisScriptClient(Connections connections, boolean cluster, Runnable slotRefresh) {
    this(connections, cluster, slotRefresh, false);
  }

  private JedisScriptClient(
      Connections connections, boolean cluster, Runnable slotRefresh, boolean findsMasterAgain) {
    this.connections = connections;
    this.cluster = cluster;
    this.slotRefresh = slotRefresh;
    this.findsMasterAgain = findsMasterAgain;
  }

  /** Over a client of a standalone Redis or a Sentinel-managed master. */
  static JedisScriptClient standalone(UnifiedJedis jedis) {
    return new JedisScriptClient(command -> command.apply(jedis), false, null);
  }

  /**
   * Over connections to a Sentinel-managed master that find the master again after a {@code
   * READONLY} reply ({@link RenewingClient}).
   */
  static JedisScriptClient followingMaster(Connections connections) {
    return new JedisScriptClient(connections, false, null, true);
  }

  /** Over a client of a Redis Cluster whose slot map {@code slotRefresh} reads again, or null. */
  static JedisScriptClient cluster(UnifiedJedis jedis, Runnable slotRefresh) {
    return new JedisScriptClient(command -> command.apply(jedis), true, slotRefresh);
  }

  /**
   * Over connections to a standalone Redis or a Sentinel-managed master that {@code borrow} hands
   * out, one per call, closed after it.
   */
  static JedisScriptClient borrowing(Supplier<? extends Jedis> borrow) {
    return new JedisScriptClient(
        command -> {
          try (Jedis jedis = borrow.get()) {
            return command.apply(jedis);
          }
        },
        false,
        null);
  }

  @Override
  public CompletableFuture<List<Object>> evalsha(String sha1, String[] keys, String[] args) {
    return call(jedis -> jedis.evalsha(sha1, Arrays.asList(keys), Arrays.asList(args)));
  }

  @Override
  public CompletableFuture<List<Object>> eval(String script, String[] keys, String[] args) {
    return call(jedis -> jedis.eval(script, Arrays.asList(keys), Arrays.asList(args)));
  }

  /** Runs {@code command} on this thread: a stage complete with its reply, or with its failure. */
  private CompletableFuture<List<Object>> call(Function<ScriptingKeyCommands, Object> command) {
    try {
      return CompletableFuture.completedFuture(reply(connections.run(command)));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Redis's error reply in {@code failure} or its causes (a pool that cannot open a connection
   * wraps the AUTH refusal that stopped it), or null.
   */
  @Override
  public String errorReply(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof JedisDataException) {
        return t.getMessage() == null ? "" : t.getMessage();
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  /**
   * Reads the slot map again in a thread of the common pool (Jedis blocks while it reads), so that
   * after a failover calls reach the promoted replica; the call itself is not sent again. A refresh
   * that fails is left to the next call without an answer.
   */
  @Override
  public void refreshTopology() {
    if (slotRefresh != null) {
      var unused = CompletableFuture.runAsync(slotRefresh).exceptionally(e -> null);
    }
  }

  @Override
  public boolean isCluster() {
    return cluster;
  }

  @Override
  public boolean findsMasterAgain() {
    return findsMasterAgain;
  }

  /**
   * The script's array reply with integers as Longs and strings as Strings (Jedis answers bulk
   * strings as byte arrays or, through its String methods, as Strings).
   *
   * @throws IllegalStateException if the reply is not an array of integers and strings
   */
  static List<Object> reply(Object reply) {
    if (!(reply instanceof List)) {
      throw new IllegalStateException("the script answered " + reply + ", not an array");
    }
    List<?> values = (List<?>) reply;
    List<Object> converted = new ArrayList<>(values.size());
    for (Object value : values) {
      if (value instanceof Long || value instanceof String) {
        converted.add(value);
      } else if (value instanceof byte[] bytes) {
        converted.add(new String(bytes, StandardCharsets.UTF_8));
      } else {
        throw new IllegalStateException(
            "the script answered " + value + " inside its array, not an integer or a string");
      }
    }
    return converted;
  }
}
