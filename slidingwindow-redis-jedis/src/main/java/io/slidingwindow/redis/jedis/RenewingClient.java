package io.slidingwindow.redis.jedis;

import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.commands.ScriptingKeyCommands;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A Jedis client of a Sentinel-managed master that is built again when Redis answers {@code
 * READONLY}. A master demoted by hand ({@code REPLICAOF}) keeps its clients connected, and Jedis's
 * Sentinel client moves its pool only on Sentinel's {@code +switch-master}, with no public way to
 * ask Sentinel again; a client built anew asks Sentinel for the master. At most once per {@link
 * #RENEW_INTERVAL_NANOS}, so that a Redis that stays read-only is not reconnected to at full rate;
 * the call that got the reply fails as it is and is not sent again. The old client is closed: calls
 * still running on it end as they would (their connections are dropped, not pooled again). A build
 * that fails (no Sentinel answers) keeps the old client. Thread-safe.
 */
final class RenewingClient implements JedisScriptClient.Connections, AutoCloseable {

  /** How long after building the client again for a READONLY reply the next build waits. */
  static final long RENEW_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

  private final Supplier<UnifiedJedis> build;
  private final LongSupplier nanoTime;
  private volatile UnifiedJedis current;
  private long lastRenewal;
  private boolean closed;

  /** Builds the first client with {@code build} (which throws if it cannot). */
  RenewingClient(Supplier<UnifiedJedis> build, LongSupplier nanoTime) {
    this.build = build;
    this.nanoTime = nanoTime;
    this.current = build.get();
    this.lastRenewal = nanoTime.getAsLong() - RENEW_INTERVAL_NANOS;
  }

  @Override
  public Object run(Function<ScriptingKeyCommands, Object> command) {
    UnifiedJedis jedis = current;
    try {
      return command.apply(jedis);
    } catch (JedisDataException e) {
      if (e.getMessage() != null && e.getMessage().startsWith("READONLY")) {
        renew(jedis);
      }
      throw e;
    }
  }

  /** Builds the client again if {@code stale} is still the current one and the interval passed. */
  synchronized void renew(UnifiedJedis stale) {
    long now = nanoTime.getAsLong();
    if (closed || current != stale || now - lastRenewal < RENEW_INTERVAL_NANOS) {
      return;
    }
    lastRenewal = now;
    UnifiedJedis fresh;
    try {
      fresh = build.get();
    } catch (RuntimeException e) { // no Sentinel answered: keep the client there is
      return;
    }
    current = fresh;
    stale.close();
  }

  /** The client in use; for tests and diagnostics. */
  UnifiedJedis current() {
    return current;
  }

  @Override
  public synchronized void close() {
    closed = true;
    current.close();
  }
}
