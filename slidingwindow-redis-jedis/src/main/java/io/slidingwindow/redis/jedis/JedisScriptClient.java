package io.slidingwindow.redis.jedis;

import io.slidingwindow.redis.ScriptClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * {@link ScriptClient} over a standalone Jedis client. Jedis blocks the calling thread until Redis
 * answers or the client's socket timeout passes, so every stage returned here is already complete.
 * Jedis reports Redis's error replies as {@link JedisDataException}s (NOSCRIPT as its subclass
 * {@code JedisNoScriptException}); anything else, such as a {@code JedisConnectionException} for a
 * socket timeout, is a call without an answer. Thread-safe as far as the client is (a pooled
 * {@code RedisClient} is).
 */
final class JedisScriptClient implements ScriptClient {

  private final UnifiedJedis jedis;

  JedisScriptClient(UnifiedJedis jedis) {
    this.jedis = jedis;
  }

  @Override
  public CompletableFuture<List<Object>> evalsha(String sha1, String[] keys, String[] args) {
    try {
      return CompletableFuture.completedFuture(
          reply(jedis.evalsha(sha1, Arrays.asList(keys), Arrays.asList(args))));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  @Override
  public CompletableFuture<List<Object>> eval(String script, String[] keys, String[] args) {
    try {
      return CompletableFuture.completedFuture(
          reply(jedis.eval(script, Arrays.asList(keys), Arrays.asList(args))));
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

  @Override
  public void onNoAnswer(Throwable failure) {
    // A standalone client has no topology to refresh; the pool replaces broken connections.
  }

  @Override
  public boolean isCluster() {
    return false;
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
      } else if (value instanceof byte[]) {
        converted.add(new String((byte[]) value, StandardCharsets.UTF_8));
      } else {
        throw new IllegalStateException(
            "the script answered " + value + " inside its array, not an integer or a string");
      }
    }
    return converted;
  }
}
