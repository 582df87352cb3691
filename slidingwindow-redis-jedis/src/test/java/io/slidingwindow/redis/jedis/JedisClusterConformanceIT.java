package io.slidingwindow.redis.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.redis.FailurePolicy;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.RateLimiterConformance;
import io.slidingwindow.testkit.redis.RedisClusterProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.RedisClusterClient;

/**
 * The core conformance kit against a 3-master Redis Cluster through Jedis, in client-time mode;
 * awkward ids with several limits (several keys per call) on every master; and a Lettuce and a
 * Jedis limiter on the Cluster serving one id from one window.
 */
class JedisClusterConformanceIT extends RateLimiterConformance {

  private static final class Holder {
    static final RedisClusterProcesses CLUSTER = RedisClusterProcesses.start(3, 0);
    static final RedisBackend JEDIS =
        JedisBackends.cluster(CLUSTER.seedUris(), Duration.ofSeconds(5));

    static {
      Runtime.getRuntime()
          .addShutdownHook(
              new Thread(
                  () -> {
                    try {
                      JEDIS.close();
                    } finally {
                      CLUSTER.close();
                    }
                  }));
    }
  }

  private static RedisRateLimiter.Builder builder(RedisBackend backend) {
    return RedisRateLimiter.builder(backend)
        .commandTimeout(Duration.ofSeconds(5))
        .failurePolicy(FailurePolicy.fallbackTo(new FailingLimiter()));
  }

  @Override
  protected KeyedRateLimiter<String> newLimiter(
      List<Limit> limits, boolean countRefusedAttempts, Ticker ticker) {
    return builder(Holder.JEDIS)
        .limits(limits)
        .countRefusedAttempts(countRefusedAttempts)
        .clientTime(ticker)
        .build();
  }

  /** Redis time is in microseconds. */
  @Override
  protected long tickNanos() {
    return 1_000;
  }

  /** As for Lettuce: a backward step is recorded into the newest stored run (docs/redis.md). */
  @Override
  protected boolean decidesAtLatestReading() {
    return false;
  }

  @Test
  void awkwardIdsWithThreeLimits_answeredByRedis() {
    RedisRateLimiter limiter =
        builder(Holder.JEDIS)
            .limit(Limit.of(1, Duration.ofMinutes(1)))
            .limit(Limit.of(5, Duration.ofHours(1)))
            .limit(Limit.exact(3, Duration.ofSeconds(10)))
            .build();
    List<String> ids =
        List.of("", "{", "}", "{}", "}{", "\r\n", "\0", "\uD800", "\uD83D\uDE00", "x".repeat(1024));
    for (int i = 0; i < 60; i++) {
      String id = i < ids.size() ? ids.get(i) : "{cluster-" + i + "}";
      assertThat(limiter.decide(id, 1).allowed()).as("first call, id #%d", i).isTrue();
      assertThat(limiter.decide(id, 1).allowed()).as("second call, id #%d", i).isFalse();
    }
  }

  @Test
  void lettuceAndJedisOnTheCluster_oneId_shareOneWindow() {
    try (RedisBackend lettuce = RedisBackend.cluster(Holder.CLUSTER.seedUris())) {
      Limit limit = Limit.of(6, Duration.ofMinutes(1));
      List<RedisRateLimiter> limiters =
          List.of(
              builder(lettuce).limit(limit).build(), builder(Holder.JEDIS).limit(limit).build());
      for (int id = 0; id < 10; id++) {
        int granted = 0;
        for (int i = 0; i < 12; i++) {
          boolean allowed = limiters.get(i % 2).tryAcquire("both-" + id, 1);
          assertThat(allowed).as("id %d, call %d", id, i).isEqualTo(i < 6);
          granted += allowed ? 1 : 0;
        }
        assertThat(granted).isEqualTo(6);
      }
    }
  }

  private static long calls(String command) {
    Pattern calls = Pattern.compile("cmdstat_" + command + ":calls=(\\d+)");
    long sum = 0;
    for (RedisServerProcess master : Holder.CLUSTER.masters()) {
      Matcher m = calls.matcher(master.cli("INFO", "commandstats"));
      sum += m.find() ? Long.parseLong(m.group(1)) : 0;
    }
    return sum;
  }

  /**
   * Every master paused for 500 ms; the call times out after 300 ms and Jedis closes its
   * connection, so Redis drops the paused command. Jedis's own cluster executor would send it again
   * on a new connection, and that copy would run when the pause ends: none is sent.
   */
  @Test
  void pausedMasters_callThatTimedOut_neverSentAgain() {
    try (RedisBackend quick =
        JedisBackends.cluster(Holder.CLUSTER.seedUris(), Duration.ofMillis(300))) {
      RedisRateLimiter limiter =
          RedisRateLimiter.builder(quick)
              .limit(Limit.of(5, Duration.ofMinutes(1)))
              .commandTimeout(Duration.ofMillis(300))
              .circuitBreaker(100, Duration.ofSeconds(1))
              .failurePolicy(FailurePolicy.failClosed())
              .build();
      assertThat(limiter.tryAcquire("paused", 1)).isTrue();
      long evalshaBefore = calls("evalsha");
      long evalBefore = calls("eval");
      for (RedisServerProcess master : Holder.CLUSTER.masters()) {
        master.cli("CLIENT", "PAUSE", "500");
      }
      assertThat(limiter.tryAcquire("paused", 1)).as("fail-closed answers the timeout").isFalse();
      await()
          .during(Duration.ofMillis(700))
          .atMost(Duration.ofSeconds(5))
          .until(() -> calls("evalsha") == evalshaBefore && calls("eval") == evalBefore);
      assertThat(limiter.decide("paused", 1).remaining()).as("the first and this ran").isEqualTo(3);
    }
  }

  /**
   * The caller's own cluster client: it is known for one, so requests are never batched across
   * slots; eight threads on distinct ids are all answered by Redis.
   */
  @Test
  void callersClusterClient_concurrentDistinctIds_eachACallOfItsOwn() throws Exception {
    Set<HostAndPort> nodes = new HashSet<>();
    for (String uri : Holder.CLUSTER.seedUris()) {
      URI parsed = URI.create(uri);
      nodes.add(new HostAndPort(parsed.getHost(), parsed.getPort()));
    }
    try (RedisClusterClient jedis = RedisClusterClient.create(nodes);
        RedisBackend backend = JedisBackends.of(jedis)) {
      RedisRateLimiter limiter = builder(backend).limit(Limit.of(1, Duration.ofMinutes(1))).build();
      ExecutorService pool = Executors.newFixedThreadPool(8);
      try {
        List<Future<Integer>> workers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          int thread = t;
          workers.add(
              pool.submit(
                  () -> {
                    int granted = 0;
                    for (int i = 0; i < 25; i++) {
                      granted += limiter.tryAcquire("own-" + thread + "-" + i, 1) ? 1 : 0;
                    }
                    return granted;
                  }));
        }
        for (Future<Integer> worker : workers) {
          assertThat(worker.get(1, TimeUnit.MINUTES)).isEqualTo(25);
        }
      } finally {
        pool.shutdownNow();
      }
    }
  }
}
