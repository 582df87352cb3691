package io.slidingwindow.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The few things this library asks of a Redis client library: send EVALSHA and EVAL, tell an error
 * reply from Redis apart from a call that got no answer, and read a Cluster's topology again when
 * asked. Everything above it (the scripts' arguments and replies, which failures are retried, time
 * limits, how often the topology is read again, batching, failure policies) is the same for every
 * client. {@code slidingwindow-redis-lettuce} and {@code slidingwindow-redis-jedis} hold the
 * adapters of Lettuce and Jedis; an adapter is wrapped by {@link RedisBackend#of(ScriptClient,
 * AutoCloseable, String)}.
 *
 * <p>Replies are the script's array as a list whose integers are {@link Long}s and whose strings
 * are {@link String}s. A failure, of Redis or of the connection, completes the returned stage
 * exceptionally, never throws. A client that does not pipeline may complete the stage before it
 * returns (the caller's thread then waits for Redis, also on the asynchronous paths). Thread-safe.
 */
public interface ScriptClient {

  /** Sends {@code EVALSHA sha1} with {@code keys} and {@code args}. */
  CompletableFuture<List<Object>> evalsha(String sha1, String[] keys, String[] args);

  /** Sends {@code EVAL script} with {@code keys} and {@code args}; Redis also caches the script. */
  CompletableFuture<List<Object>> eval(String script, String[] keys, String[] args);

  /**
   * The text of the error Redis replied with ({@code "NOSCRIPT ..."}, {@code "TRYAGAIN ..."}) if
   * {@code failure} is such a reply, or null if the call got no answer (no connection, refused
   * while disconnected, timed out): such a call may have run.
   */
  String errorReply(Throwable failure);

  /**
   * Starts reading the Cluster's topology (which node serves which slot) again, in the background,
   * and returns at once. Called on Cluster only, after a call got no answer, at most once a second
   * per backend: after a master fails over, calls for its slots then reach the promoted replica.
   * Not called when {@link #isCluster()} is false.
   */
  void refreshTopology();

  /** Whether this is a Redis Cluster, where one call may only hold keys of one slot. */
  boolean isCluster();

  /**
   * Whether this client finds the master again by itself after a {@code READONLY} reply, as the
   * Sentinel clients of this library's adapters do (they ask Sentinel): such a reply then means a
   * master demoted since, not a limiter pointed at a replica, and the backend logs a warning that
   * says so instead of an error asking to point the limiter at the master. False unless overridden.
   */
  default boolean findsMasterAgain() {
    return false;
  }
}
