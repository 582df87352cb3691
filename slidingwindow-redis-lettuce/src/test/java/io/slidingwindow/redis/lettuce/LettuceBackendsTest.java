package io.slidingwindow.redis.lettuce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeout;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Argument checks and connect retries of the backend factories; none of these reaches the network.
 */
class LettuceBackendsTest {

  @Test
  void factories_malformedUriWithPassword_messageAndCausesLeaveThePasswordOut() {
    // "%zz" is no escape: Lettuce refuses the URI and quotes it whole in its own message.
    String secret = "s3cr%zzet";
    List<Runnable> calls =
        List.of(
            () -> LettuceBackends.standalone("redis://:" + secret + "@127.0.0.1:6379"),
            () -> LettuceBackends.sentinel(List.of("redis://:" + secret + "@127.0.0.1:26379"), "m"),
            () -> LettuceBackends.cluster(List.of("redis://user:" + secret + "@127.0.0.1:7000")));
    for (Runnable call : calls) {
      assertThatThrownBy(call::run)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("must hold Redis URIs")
          .hasMessageNotContaining(secret)
          .hasNoCause();
    }
  }

  @Test
  void factories_invalidArguments_areRejectedNamingTheParameter() {
    assertThatThrownBy(() -> LettuceBackends.standalone(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uri");
    assertThatThrownBy(() -> LettuceBackends.standalone("no-scheme:///"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uri")
        .hasMessageContaining("no-scheme:///");
    assertThatThrownBy(() -> LettuceBackends.sentinel(List.of(), "mymaster"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sentinelUris");
    assertThatThrownBy(() -> LettuceBackends.sentinel(List.of("redis://127.0.0.1:26379"), ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("masterName");
    assertThatThrownBy(() -> LettuceBackends.sentinel(Arrays.asList((String) null), "mymaster"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sentinelUris");
    assertThatThrownBy(
            () ->
                LettuceBackends.sentinel(
                    List.of("redis://127.0.0.1:26379"), "m", "app", null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("username 'app' needs a password");
    assertThatThrownBy(() -> LettuceBackends.cluster(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("seedUris");
    assertThatThrownBy(() -> LettuceBackends.of((RedisClient) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("client");
    assertThatThrownBy(() -> LettuceBackends.of((RedisClusterClient) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("client");
  }

  /**
   * A connect failure as Lettuce throws it: the first time with the server's reply lost to its
   * handshake race, then with the reply (a refused password).
   */
  private static RedisConnectionException failedConnect(int attempt) {
    Throwable reason =
        attempt == 1
            ? new IllegalStateException(LettuceConnects.LOST_HANDSHAKE)
            : new RedisCommandExecutionException(
                "WRONGPASS invalid username-password pair or user is disabled.");
    return new RedisConnectionException("Unable to connect to 127.0.0.1:1", reason);
  }

  @Test
  void of_clientLosesTheReplyOnce_connectsAgainAndThrowsTheReply() {
    AtomicInteger connects = new AtomicInteger();
    RedisClient client =
        new RedisClient() {
          @Override
          public StatefulRedisConnection<String, String> connect() {
            throw failedConnect(connects.incrementAndGet());
          }
        };
    try {
      assertThatThrownBy(() -> LettuceBackends.of(client))
          .isInstanceOf(RedisConnectionException.class)
          .hasStackTraceContaining("WRONGPASS");
      assertThat(connects).hasValue(2);
    } finally {
      client.shutdown();
    }
  }

  @Test
  void of_clusterClientLosesTheReplyOnce_connectsAgainAndThrowsTheReply() {
    AtomicInteger connects = new AtomicInteger();
    RedisClusterClient client =
        new RedisClusterClient() {
          @Override
          public StatefulRedisClusterConnection<String, String> connect() {
            throw failedConnect(connects.incrementAndGet());
          }
        };
    try {
      assertThatThrownBy(() -> LettuceBackends.of(client))
          .isInstanceOf(RedisConnectionException.class)
          .hasStackTraceContaining("WRONGPASS");
      assertThat(connects).hasValue(2);
    } finally {
      client.shutdown();
    }
  }

  @Test
  void awaitAll_returnsOnceEveryConnectIsComplete_failedOnesToo() {
    CompletableFuture<String> connected = CompletableFuture.completedFuture("node");
    CompletableFuture<String> refused =
        CompletableFuture.failedFuture(new RedisConnectionException("refused"));
    assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () -> LettuceBackends.awaitAll(List.of(connected, refused), Duration.ofHours(1)));
  }

  @Test
  void awaitAll_aConnectThatNeverCompletes_endsTheWaitAtTheBound() {
    CompletableFuture<String> connected = CompletableFuture.completedFuture("node");
    CompletableFuture<String> hanging = new CompletableFuture<>();
    assertTimeoutPreemptively(
        Duration.ofSeconds(10),
        () -> LettuceBackends.awaitAll(List.of(connected, hanging), Duration.ofMillis(50)));
    assertThat(hanging).isNotDone();
  }

  @Test
  void awaitAll_interrupted_returnsAtOnceAndKeepsTheInterrupt() {
    Thread.currentThread().interrupt();
    try {
      // On this thread (not preemptively, which would run it on another): without the interrupt
      // the wait would take its whole bound.
      assertTimeout(
          Duration.ofSeconds(10),
          () ->
              LettuceBackends.awaitAll(List.of(new CompletableFuture<>()), Duration.ofSeconds(30)));
    } finally {
      assertThat(Thread.interrupted()).as("still interrupted").isTrue();
    }
  }
}
