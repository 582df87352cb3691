package io.slidingwindow.benchmarks.redis;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.output.IntegerOutput;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;

/**
 * BENCHMARK HARNESS support: {@code MEMORY USAGE} of one id's state with the limit full, ours
 * beside the sorted-set log of the same requests. Flushes the target Redis.
 */
final class RedisMemory {

  private RedisMemory() {}

  /** Fills one id per limit and returns the Markdown table. */
  static String table(
      RedisCommands<String, String> admin,
      RedisBackend backend,
      RedisCommands<String, String> zset,
      String sha) {
    admin.flushall();
    AtomicLong nanos = new AtomicLong();
    Ticker ticker = nanos::get;
    StringBuilder out = new StringBuilder();
    out.append("### MEMORY USAGE ... SAMPLES 0 of one id's state, limit full\n\n");
    out.append("| limit | runs stored | ours (bytes) | sorted-set log (bytes) |\n");
    out.append("|---|---:|---:|---:|\n");
    for (Limit limit :
        List.of(
            Limit.of(1000, Duration.ofMinutes(1)), Limit.exact(10_000, Duration.ofSeconds(10)))) {
      nanos.set(0);
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(backend)
              .limit(limit)
              .clientTime(ticker)
              .commandTimeout(Duration.ofSeconds(5))
              .failurePolicy(FailurePolicy.REFUSE)
              .build();
      String id = "memory-" + limit.permits();
      // One grant per bucket (60 ms apart) or per microsecond: the most runs the limit can hold.
      // The ticker read 0 when the limiter was built (its origin) and now reads the wall clock in
      // nanoseconds, so buckets are as large as server time would make them.
      long step = limit.isExact() ? 1_000 : limit.precisionNanos();
      long t = System.currentTimeMillis() * 1_000_000;
      for (long i = 0; i < limit.permits(); i++, t += step) {
        nanos.set(t);
        if (!limiter.tryAcquire(id, 1)) {
          throw new IllegalStateException("refused at " + i);
        }
      }
      String key =
          "sw:{u"
              + Base64.getUrlEncoder()
                  .withoutPadding()
                  .encodeToString(id.getBytes(StandardCharsets.UTF_8))
              + "}:"
              + limit.permits()
              + ":"
              + limit.windowNanos() / 1000
              + ":"
              + (limit.isExact() ? 1 : limit.precisionNanos() / 1000);
      long ours = memoryUsage(admin, key);
      long runs =
          (admin.llen(key) + 1) / 2; // a header holding the newest run, then closed-run pairs
      String zkey = "zset:{" + id + "}";
      long now = System.currentTimeMillis();
      for (long i = 0; i < limit.permits(); i++) {
        zset.evalsha(
            sha,
            ScriptOutputType.INTEGER,
            new String[] {zkey},
            Long.toString(limit.windowNanos() / 1_000_000 * 100),
            Long.toString(limit.permits() + 1),
            Long.toString(now + i),
            Long.toString(i));
      }
      long log = memoryUsage(admin, zkey);
      out.append(String.format(Locale.ROOT, "| %s | %d | %d | %d |%n", limit, runs, ours, log));
    }
    return out.toString();
  }

  private static long memoryUsage(RedisCommands<String, String> admin, String key) {
    Long bytes =
        admin.dispatch(
            CommandType.MEMORY,
            new IntegerOutput<>(StringCodec.UTF8),
            new CommandArgs<>(StringCodec.UTF8).add("USAGE").addKey(key).add("SAMPLES").add(0));
    return bytes == null ? -1 : bytes;
  }
}
