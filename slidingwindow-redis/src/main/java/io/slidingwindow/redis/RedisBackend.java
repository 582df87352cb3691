package io.slidingwindow.redis;

import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * A connection to Redis (standalone, Sentinel or Cluster) that runs this library's scripts through
 * a client library's {@link ScriptClient}: Lettuce's from {@code LettuceBackends} ({@code
 * slidingwindow-redis-lettuce}), Jedis's from {@code JedisBackends} ({@code
 * slidingwindow-redis-jedis}), or another adapter's through {@link #of}. Build it once and share it
 * between limiters and counters.
 *
 * <p>Every script is called with EVALSHA; a server that does not know it yet answers NOSCRIPT and
 * the call is sent again with EVAL, which also loads it there. TRYAGAIN (a multi-key call during a
 * Cluster slot migration) is retried up to twice, a few milliseconds apart; Cluster redirects
 * (MOVED, ASK) are followed by the client library. Nothing else is retried: a call that may have
 * run is never sent twice. On Cluster, calls that get no answer ask the client to read the topology
 * again, at most once a second. These rules are the same for every client library and every caller;
 * the adapter only sends the commands and tells Redis's error replies from calls without an answer.
 *
 * <p>Thread-safe: every limiter and counter built on it shares it.
 */
public final class RedisBackend implements AutoCloseable {

  /** The longest command timeout a limiter or counters accept. */
  public static final Duration MAX_COMMAND_TIMEOUT = Duration.ofHours(1);

  private final ScriptClient client;
  private final ScriptCalls calls;
  private final AutoCloseable resources;
  private final String description;

  private RedisBackend(ScriptClient client, AutoCloseable resources, String description) {
    this.client = client;
    this.description = RedisUris.mask(description);
    this.calls =
        new ScriptCalls(client, new ProblemReport(this.description, client.findsMasterAgain()));
    this.resources = resources;
  }

  /**
   * A backend over a client library, through its adapter {@code client}: the limiters and counters
   * built on it run the same scripts, keys and retry rules as on any other client. {@link #close()}
   * closes {@code resources}; {@code description} names the server in logs and {@link #toString()},
   * any password in a URI masked.
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public static RedisBackend of(ScriptClient client, AutoCloseable resources, String description) {
    if (client == null || resources == null || description == null) {
      throw new IllegalArgumentException(
          "client, resources and description must not be null, were "
              + client
              + ", "
              + resources
              + ", "
              + description);
    }
    return new RedisBackend(client, resources, description);
  }

  /**
   * Probes Redis with a script that writes to one key of the library's own, as the limiter's script
   * does, and says whether it ran: down with a {@link RedisProblem} when Redis refuses it for a
   * lasting reason (a replica, no scripting, credentials, ACL rights), down without one when Redis
   * did not answer within {@code timeout} or could not be reached. Blocks for at most about {@code
   * timeout} (a blocking client, for at most its own socket timeout); meant for health checks and
   * start-up, not for every request.
   *
   * @throws IllegalArgumentException if {@code timeout} is null or not positive
   */
  public RedisHealth health(Duration timeout) {
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    try {
      calls.await(
          calls.run(Script.PROBE, new String[] {Keys.PROBE_KEY}, new String[0]), timeout.toNanos());
      return RedisHealth.healthy();
    } catch (TimeoutException e) {
      return RedisHealth.down(null, "no answer within " + timeout);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return RedisHealth.down(null, "interrupted while waiting for Redis");
    } catch (ExecutionException e) {
      Throwable cause = ScriptCalls.unwrap(e.getCause());
      String reply = client.errorReply(cause);
      if (reply == null) {
        return RedisHealth.down(null, "no answer: " + cause);
      }
      return RedisHealth.down(RedisProblem.of(reply), reply);
    } catch (RuntimeException e) {
      return RedisHealth.down(null, "cannot call Redis: " + e);
    }
  }

  /**
   * The lasting problem that the latest failed calls of this backend's limiters and counters met (a
   * replica, no scripting, credentials, ACL rights), or null if none, or if a call succeeded since.
   * Costs nothing: it reads what the calls reported. The first occurrence of each problem is also
   * logged at ERROR on the logger {@code io.slidingwindow.redis}; a {@link
   * RedisProblem#READ_ONLY_REPLICA} at WARNING instead where the client finds the master again
   * ({@link ScriptClient#findsMasterAgain()}, Sentinel), saying that the master was demoted.
   */
  public RedisProblem latestProblem() {
    return calls.problems().latest();
  }

  /**
   * Whether this backend's client finds the master again by itself after a {@code READONLY} reply
   * (asking Sentinel, as the Sentinel backends of this library's adapters do): a {@link
   * RedisProblem#READ_ONLY_REPLICA} then means a demoted master, not a limiter pointed at a
   * replica. Health reports explain a problem with {@link RedisProblem#explanation(boolean)} of
   * this.
   */
  public boolean findsMasterAgain() {
    return client.findsMasterAgain();
  }

  /** Whether this is a Cluster connection, where one call may only hold keys of one slot. */
  boolean isCluster() {
    return client.isCluster();
  }

  /** The script calls on this connection, with the retry rules every caller shares. */
  ScriptCalls calls() {
    return calls;
  }

  /** The client library's adapter; its {@code toString()} may tell its state, for diagnostics. */
  ScriptClient client() {
    return client;
  }

  /**
   * Closes what the backend was given to close: its connection, and the client and its threads if
   * the backend made them.
   *
   * @throws IllegalStateException naming the backend if closing them failed with a checked
   *     exception
   */
  @Override
  public void close() {
    try {
      resources.close();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("closing " + description, e);
    }
  }

  @Override
  public String toString() {
    return "RedisBackend[" + description + "]";
  }
}
