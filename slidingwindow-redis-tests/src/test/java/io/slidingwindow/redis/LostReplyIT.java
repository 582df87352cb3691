package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.redis.RedisClusterProcesses;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A connection lost after Redis ran a script and before its reply arrived ({@link ReplyCutter}
 * passes everything on but that reply). The call may have run, so it must never be sent again, even
 * where the client library reconnects within the caller's timeout: Lettuce, left to itself, writes
 * the commands that were on the wire again once it has reconnected, so a refund would give permits
 * back twice (more than the limit let through) and a decision or an add would count twice. Each
 * call here runs exactly once, and its caller hears of the failure: the policy answers a decision,
 * a refund or an add throws {@link RedisCallException}.
 */
class LostReplyIT {

  /** Long enough for a reconnect and a resend, had there been one. */
  private static final Duration TIMEOUT = Duration.ofSeconds(3);

  private static final AtomicInteger PREFIXES = new AtomicInteger();

  private static RedisRateLimiter limiter(RedisBackend backend) {
    return RedisRateLimiter.builder(backend)
        .limit(Limit.of(3, Duration.ofMinutes(1)))
        .keyPrefix("lost" + PREFIXES.incrementAndGet())
        .commandTimeout(TIMEOUT)
        .circuitBreaker(100, Duration.ofSeconds(1))
        .failurePolicy(FailurePolicy.REFUSE)
        .refusalCache(0)
        .build();
  }

  /** What the limit of {@code id} holds, once the client has connected again. */
  private static long used(RedisRateLimiter limiter, String id) {
    return await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptionsInstanceOf(RedisCallException.class)
        .until(() -> limiter.peek(id).limits().get(0).used(), used -> true);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void refundWhoseReplyIsLost_givesBackOnce(Client client) throws Exception {
    try (ReplyCutter cutter = new ReplyCutter(SharedRedis.server().port());
        RedisBackend backend = client.standalone(cutter.uri(), TIMEOUT)) {
      RedisRateLimiter limiter = limiter(backend);
      for (int i = 0; i < 3; i++) {
        assertThat(limiter.tryAcquire("r", 1)).isTrue();
      }
      int connections = cutter.connections();
      cutter.cutNextReply();
      Throwable thrown = catchThrowable(() -> limiter.refund("r", 1));
      assertThat(cutter.cuts()).isEqualTo(1);
      assertThat(used(limiter, "r")).as("one permit given back, not two").isEqualTo(2);
      assertThat(thrown)
          .as("the refund's reply was lost: its caller is told, not answered by a second run")
          .isInstanceOf(RedisCallException.class);
      assertThat(limiter.tryAcquire("r", 1)).isTrue();
      assertThat(limiter.tryAcquire("r", 1)).as("the limit holds after the refund").isFalse();
      assertThat(cutter.connections()).as("the client connected again").isGreaterThan(connections);
    }
  }

  /**
   * On a Cluster of three masters of this test's own, each announcing the port of a relay in front
   * of it, so that the client reaches every node through one: a refund whose reply is lost gives
   * back once. Every relay loses the next reply it sees, the refund's among them, and stops losing
   * replies as soon as the refund has returned.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void refundWhoseReplyIsLost_onCluster_givesBackOnce(Client client) throws Exception {
    try (RedisClusterProcesses cluster = RedisClusterProcesses.start(3, 0)) {
      List<ReplyCutter> cutters = new ArrayList<>();
      try {
        for (RedisServerProcess node : cluster.masters()) {
          ReplyCutter cutter = new ReplyCutter(node.port());
          cutters.add(cutter);
          node.cli("CONFIG", "SET", "cluster-announce-port", Integer.toString(cutter.port()));
        }
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> everyNodeAnnouncesItsRelay(cluster, cutters));
        try (RedisBackend backend = client.cluster(List.of(cutters.get(0).uri()), TIMEOUT)) {
          RedisRateLimiter limiter = limiter(backend);
          for (int i = 0; i < 3; i++) {
            assertThat(limiter.tryAcquire("k", 1)).isTrue();
          }
          cutters.forEach(ReplyCutter::cutNextReply);
          Throwable thrown = catchThrowable(() -> limiter.refund("k", 1));
          cutters.forEach(ReplyCutter::stopCutting);
          assertThat(cutters.stream().mapToInt(ReplyCutter::cuts).sum()).isGreaterThanOrEqualTo(1);
          assertThat(used(limiter, "k")).as("one permit given back, not two").isEqualTo(2);
          assertThat(thrown).isInstanceOf(RedisCallException.class);
        }
      } finally {
        for (ReplyCutter cutter : cutters) {
          cutter.close();
        }
      }
    }
  }

  private static boolean everyNodeAnnouncesItsRelay(
      RedisClusterProcesses cluster, List<ReplyCutter> cutters) {
    for (RedisServerProcess node : cluster.masters()) {
      String nodes = node.cli("CLUSTER", "NODES");
      for (ReplyCutter cutter : cutters) {
        if (!nodes.contains(":" + cutter.port() + "@")) {
          return false;
        }
      }
    }
    return true;
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void decisionWhoseReplyIsLost_countsOnce_andThePolicyAnswers(Client client) throws Exception {
    try (ReplyCutter cutter = new ReplyCutter(SharedRedis.server().port());
        RedisBackend backend = client.standalone(cutter.uri(), TIMEOUT)) {
      RedisRateLimiter limiter = limiter(backend);
      assertThat(limiter.tryAcquire("d", 1)).isTrue();
      cutter.cutNextReply();
      boolean granted = limiter.tryAcquire("d", 1);
      assertThat(cutter.cuts()).isEqualTo(1);
      assertThat(used(limiter, "d")).as("the lost call ran once").isEqualTo(2);
      assertThat(granted).as("REFUSE answers the lost reply").isFalse();
      cutter.cutNextReply();
      assertThat(limiter.decideAsync("d", 1).toCompletableFuture().get().allowed())
          .as("the asynchronous path alike")
          .isFalse();
      assertThat(used(limiter, "d")).isEqualTo(3);
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void addWhoseReplyIsLost_countsOnce(Client client) throws Exception {
    try (ReplyCutter cutter = new ReplyCutter(SharedRedis.server().port());
        RedisBackend backend = client.standalone(cutter.uri(), TIMEOUT)) {
      RedisCounters counters =
          RedisCounters.builder(backend)
              .size(6)
              .interval(Duration.ofSeconds(10))
              .keyPrefix("lostc" + PREFIXES.incrementAndGet())
              .commandTimeout(TIMEOUT)
              .build();
      assertThat(counters.sum("c")).as("connected").isZero();
      cutter.cutNextReply();
      Throwable thrown = catchThrowable(() -> counters.addAndGet("c", 5));
      assertThat(cutter.cuts()).isEqualTo(1);
      long sum =
          await()
              .atMost(Duration.ofSeconds(10))
              .ignoreExceptionsInstanceOf(RedisCallException.class)
              .until(() -> counters.sum("c"), s -> true);
      assertThat(sum).as("added once").isEqualTo(5);
      assertThat(thrown).isInstanceOf(RedisCallException.class);
    }
  }
}
