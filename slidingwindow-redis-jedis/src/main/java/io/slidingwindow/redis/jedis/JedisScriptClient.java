package io.slidingwindow.redis.jedis;

import io.slidingwindow.redis.ScriptClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * {@link ScriptClient} over a Jedis client. Jedis blocks the calling thread until Redis answers or
 * the client's socket timeout passes, so every stage returned here is already complete. Jedis
 * reports Redis's error replies as {@link JedisDataException}s (NOSCRIPT as its subclass {@code
 * JedisNoScriptException}); anything else, such as a {@code JedisConnectionException} for a socket
 * timeout, is a call without an answer. Thread-safe as far as the client is (a pooled {@code
 * RedisClient} is).
 */
final class JedisScriptClient implements ScriptClient {

  /** The least time between two slot-map refreshes that failed calls ask for. */
  private static final long REFRESH_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final UnifiedJedis jedis;

  /** Reads a Cluster's slot map again (blocking); null when not Cluster. */
  private final Runnable slotRefresh;

  /** When a failed call last asked for a slot-map refresh (System.nanoTime). */
  private final AtomicLong lastRefresh = new AtomicLong(System.nanoTime() - REFRESH_INTERVAL_NANOS);

  /** A client of a standalone Redis (or a Sentinel-managed master). */
  JedisScriptClient(UnifiedJedis jedis) {
    this(jedis, null);
  }

  /** A client of a Redis Cluster whose slot map {@code slotRefresh} reads again (or not). */
  JedisScriptClient(UnifiedJedis jedis, Runnable slotRefresh) {
    this.jedis = jedis;
    this.slotRefresh = slotRefresh;
  }

  @Override
  public CompletableFuture<List<Object>> evalsha(String sha1, String[] keys, String[] args) {
    return call(() -> jedis.evalsha(sha1, Arrays.asList(keys), Arrays.asList(args)));
  }

  @Override
  public CompletableFuture<List<Object>> eval(String script, String[] keys, String[] args) {
    return call(() -> jedis.eval(script, Arrays.asList(keys), Arrays.asList(args)));
  }

  /** Runs {@code command} on this thread: a stage complete with its reply, or with its failure. */
  private static CompletableFuture<List<Object>> call(Supplier<Object> command) {
    try {
      return CompletableFuture.completedFuture(reply(command.get()));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public String errorReply(Throwable failure) {
    if (!(failure instanceof JedisDataException)) {
      return null;
    }
    return failure.getMessage() == null ? "" : failure.getMessage();
  }

  /**
   * On Cluster, reads the slot map again in the background, at most once a second, so that after a
   * failover calls reach the promoted replica; the call itself is not sent again. Elsewhere
   * nothing: the pool replaces broken connections.
   */
  @Override
  public void onNoAnswer(Throwable failure) {
    if (slotRefresh == null) {
      return;
    }
    long last = lastRefresh.get();
    long now = System.nanoTime();
    if (now - last >= REFRESH_INTERVAL_NANOS && lastRefresh.compareAndSet(last, now)) {
      CompletableFuture.runAsync(slotRefresh)
          .exceptionally(e -> null); // the next failed call asks again
    }
  }

  @Override
  public boolean isCluster() {
    return slotRefresh != null;
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
