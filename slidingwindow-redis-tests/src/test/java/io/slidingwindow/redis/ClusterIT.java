package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.redis.jedis.JedisBackends;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.redis.ClusterSlots;
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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import redis.clients.jedis.HostAndPort;

/**
 * Each client on the shared 3-master, 3-replica Cluster: awkward ids with several limits (several
 * keys per call) answered on every master, a call that timed out never sent again, and a caller's
 * own cluster client, on which requests are never batched across slots.
 */
class ClusterIT {

  private static RedisRateLimiter.Builder builder(RedisBackend backend) {
    return RedisRateLimiter.builder(backend)
        .commandTimeout(Client.GENEROUS)
        .fallback(new FailingLimiter());
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void awkwardIdsWithThreeLimits_answeredByRedisOnEveryMaster(Client client) {
    RedisRateLimiter limiter =
        builder(SharedCluster.backend(client))
            .keyPrefix("awkward-" + client)
            .limit(Limit.of(1, Duration.ofMinutes(1)))
            .limit(Limit.of(5, Duration.ofHours(1)))
            .limit(Limit.exact(3, Duration.ofSeconds(10)))
            .build();
    List<String> ids =
        List.of(
            "",
            "{",
            "}",
            "{}",
            "}{",
            "\r\n",
            "\0",
            "\uD800",
            "\uD83D\uDE00",
            "x".repeat(1_024),
            "y".repeat(100_000));
    Set<Integer> slots = new HashSet<>();
    for (int i = 0; i < 60; i++) {
      String id = i < ids.size() ? ids.get(i) : "{cluster-" + i + "}";
      slots.add(ClusterSlots.slot(limiter.keysOf(id).get(0)));
      assertThat(limiter.decide(id, 1).allowed()).as("first call, id #%d", i).isTrue();
      assertThat(limiter.decide(id, 1).allowed()).as("second call, id #%d", i).isFalse();
    }
    assertThat(slots.stream().filter(s -> s < 5461).count())
        .as("ids on the first master")
        .isPositive();
    assertThat(slots.stream().filter(s -> s > 10922).count())
        .as("ids on the last master")
        .isPositive();
  }

  /**
   * The master of the id's slot paused for three seconds (long enough that the call is made while
   * it lasts, however slowly the machine starts redis-cli); the call times out after 300 ms. Jedis
   * then closes its connection, so Redis drops the paused command; Lettuce's connection stays, so
   * Redis runs it once the pause ends. Either way it is never sent again (Jedis's own cluster
   * executor would send it again on a new connection, and that copy would run too): the counts stay
   * put for 700 ms after the pause. The quick limiter first makes one call that succeeds (on a
   * loaded machine its first calls may time out while it connects), and a second limiter on the
   * same keys with a generous timeout reads the counts.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void pausedMaster_callThatTimedOut_neverSentAgain(Client client) {
    Duration timeout = Duration.ofMillis(300);
    try (RedisBackend quick = client.cluster(SharedCluster.cluster().seedUris(), timeout);
        RedisBackend patient =
            client.cluster(SharedCluster.cluster().seedUris(), Client.GENEROUS)) {
      RedisRateLimiter limiter = pausedLimiter(quick, client, timeout);
      RedisRateLimiter reader = pausedLimiter(patient, client, Client.GENEROUS);
      await().atMost(Duration.ofSeconds(10)).until(() -> limiter.tryAcquire("paused", 1));
      long remainingBefore = reader.decide("paused", 1).remaining();
      RedisServerProcess owner =
          TryAgainIT.ownerOf(
              SharedCluster.cluster(), ClusterSlots.slot(limiter.keysOf("paused").get(0)));
      long evalshaBefore = owner.commandCalls("evalsha");
      long evalBefore = owner.commandCalls("eval");
      owner.cli("CLIENT", "PAUSE", "3000");
      assertThat(limiter.tryAcquire("paused", 1)).as("REFUSE answers the timeout").isFalse();
      owner.cli("PING"); // answered once the pause is over
      long ranAfterThePause = client.blocks() ? 0 : 1;
      await()
          .during(Duration.ofMillis(700))
          .atMost(Duration.ofSeconds(5))
          .until(
              () ->
                  owner.commandCalls("evalsha") == evalshaBefore + ranAfterThePause
                      && owner.commandCalls("eval") == evalBefore);
      assertThat(reader.decide("paused", 1).remaining())
          .as("the paused one if it ran, and this one")
          .isEqualTo(remainingBefore - 1 - ranAfterThePause);
    }
  }

  private static RedisRateLimiter pausedLimiter(
      RedisBackend backend, Client client, Duration timeout) {
    return RedisRateLimiter.builder(backend)
        .keyPrefix("paused-" + client)
        .limit(Limit.of(50, Duration.ofMinutes(1)))
        .commandTimeout(timeout)
        .circuitBreaker(100, Duration.ofSeconds(1))
        .failurePolicy(FailurePolicy.REFUSE)
        .build();
  }

  /** A backend over the caller's own cluster client of {@code client}'s library. */
  private static RedisBackend callersClient(Client client, List<AutoCloseable> toClose) {
    List<String> seeds = SharedCluster.cluster().seedUris();
    if (client == Client.JEDIS) {
      Set<HostAndPort> nodes = new HashSet<>();
      for (String uri : seeds) {
        URI parsed = URI.create(uri);
        nodes.add(new HostAndPort(parsed.getHost(), parsed.getPort()));
      }
      redis.clients.jedis.RedisClusterClient jedis =
          redis.clients.jedis.RedisClusterClient.create(nodes);
      toClose.add(jedis);
      return JedisBackends.of(jedis);
    }
    io.lettuce.core.cluster.RedisClusterClient lettuce =
        io.lettuce.core.cluster.RedisClusterClient.create(
            seeds.stream().map(io.lettuce.core.RedisURI::create).toList());
    toClose.add(lettuce::shutdown);
    return LettuceBackends.of(lettuce);
  }

  /**
   * The caller's own cluster client: it is known for one, so requests are never batched across
   * slots; eight threads on distinct ids are all answered by Redis.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void callersClusterClient_concurrentDistinctIds_eachACallOfItsOwn(Client client)
      throws Exception {
    List<AutoCloseable> toClose = new ArrayList<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try (RedisBackend backend = callersClient(client, toClose)) {
      RedisRateLimiter limiter =
          builder(backend)
              .keyPrefix("own-" + client)
              .limit(Limit.of(1, Duration.ofMinutes(1)))
              .build();
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
      for (AutoCloseable c : toClose) {
        c.close();
      }
    }
  }
}
