package io.slidingwindow.redis.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisAccessControlException;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.exceptions.JedisNoScriptException;

/** How Jedis's answers are read, and the factories' argument checks; no network. */
class JedisScriptClientTest {

  @Test
  void reply_integersAndStrings_keptAsLongsAndStrings() {
    byte[] message = "WRONGTYPE".getBytes(StandardCharsets.UTF_8);
    assertThat(JedisScriptClient.reply(List.of(1L, 2L, "x", message)))
        .containsExactly(1L, 2L, "x", "WRONGTYPE");
  }

  @Test
  void reply_notAnArrayOfIntegersAndStrings_isRejected() {
    assertThatThrownBy(() -> JedisScriptClient.reply("OK"))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> JedisScriptClient.reply(List.of(1L, List.of(2L))))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void errorReply_dataExceptionsAreRedisReplies_connectionFailuresAreNoAnswer() {
    JedisScriptClient client = JedisScriptClient.standalone(null);
    assertThat(client.errorReply(new JedisNoScriptException("NOSCRIPT No matching script.")))
        .startsWith("NOSCRIPT");
    assertThat(client.errorReply(new JedisDataException("TRYAGAIN Multiple keys")))
        .startsWith("TRYAGAIN");
    Exception timeout = new JedisConnectionException(new SocketTimeoutException("Read timed out"));
    assertThat(client.errorReply(timeout)).isNull();
    assertThat(client.errorReply(new IllegalStateException("reply"))).isNull();
    Exception poolRefused =
        new JedisException(
            "Could not get a resource from the pool",
            new JedisAccessControlException("WRONGPASS invalid username-password pair"));
    assertThat(client.errorReply(poolRefused))
        .as("a pool that could not open a connection for a refused AUTH")
        .startsWith("WRONGPASS");
    Exception poolUnreachable =
        new JedisException(
            "Could not get a resource from the pool",
            new JedisConnectionException("Failed to connect"));
    assertThat(client.errorReply(poolUnreachable)).isNull();
  }

  @Test
  void borrowing_closesEachConnectionAfterItsCall_andClusterClientsAreKnown() {
    AtomicInteger closed = new AtomicInteger();
    Jedis connection =
        new Jedis() {
          @Override
          public Object evalsha(String sha1, List<String> keys, List<String> args) {
            return List.of(1L, "x");
          }

          @Override
          public void close() {
            closed.incrementAndGet();
          }
        };
    JedisScriptClient borrowing = JedisScriptClient.borrowing(() -> connection);
    assertThat(borrowing.evalsha("sha", new String[] {"k"}, new String[0]))
        .isCompletedWithValue(List.of(1L, "x"));
    assertThat(closed).hasValue(1);
    assertThat(borrowing.isCluster()).isFalse();
  }

  @Test
  void factories_invalidArguments_areRejectedNamingTheParameter() {
    assertThatThrownBy(() -> JedisBackends.standalone(null, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uri");
    assertThatThrownBy(() -> JedisBackends.standalone("http://127.0.0.1:1", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uri")
        .hasMessageContaining("http://127.0.0.1:1");
    assertThatThrownBy(() -> JedisBackends.standalone("redis://127.0.0.1:6379", Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("timeout");
    assertThatThrownBy(() -> JedisBackends.sentinel(List.of(), "m", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sentinelUris");
    assertThatThrownBy(
            () -> JedisBackends.sentinel(List.of("redis://127.0.0.1:1"), "", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("masterName");
    assertThatThrownBy(() -> JedisBackends.sentinel(List.of("x"), "m", Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sentinelUris");
    assertThatThrownBy(() -> JedisBackends.of((UnifiedJedis) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("jedis");
    assertThatThrownBy(() -> JedisBackends.of(null, "pool"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("connections");
  }
}
