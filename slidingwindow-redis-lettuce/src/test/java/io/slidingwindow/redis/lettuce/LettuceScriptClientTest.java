package io.slidingwindow.redis.lettuce;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.protocol.AsyncCommand;
import io.lettuce.core.protocol.CommandArgs;
import io.lettuce.core.protocol.CommandType;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How Lettuce's failures are read, and the topology refresh; no network. */
class LettuceScriptClientTest {

  @Test
  void errorReply_commandExecutionExceptionsAreRedisReplies_othersAreNoAnswer() {
    LettuceScriptClient client = new LettuceScriptClient(null, null);
    assertThat(client.errorReply(new RedisNoScriptException("NOSCRIPT No matching script.")))
        .startsWith("NOSCRIPT");
    assertThat(client.errorReply(new RedisCommandExecutionException("TRYAGAIN Multiple keys")))
        .startsWith("TRYAGAIN");
    assertThat(client.errorReply(new RedisCommandTimeoutException("Command timed out"))).isNull();
    assertThat(client.errorReply(new RedisConnectionException("Connection closed"))).isNull();
    assertThat(client.errorReply(new RedisException("Connection is closed"))).isNull();
    assertThat(client.errorReply(new IllegalStateException("reply"))).isNull();
  }

  /**
   * A READONLY reply drops the channel, at most once per interval of the fake clock; other replies
   * and failures do not, nor does READONLY on Cluster.
   */
  @Test
  void readOnlyReply_dropsTheChannel_atMostOncePerInterval_notOnCluster() {
    long[] now = {5};
    int[] drops = {0};
    LettuceScriptClient client =
        new LettuceScriptClient(null, null, () -> drops[0]++, () -> now[0]);
    RedisCommandExecutionException readOnly =
        new RedisCommandExecutionException("READONLY You can't write against a read only replica.");
    client.readOnlyCheck(new RedisCommandExecutionException("TRYAGAIN Multiple keys"));
    client.readOnlyCheck(new RedisCommandTimeoutException("Command timed out"));
    assertThat(drops[0]).isZero();
    client.readOnlyCheck(readOnly);
    assertThat(drops[0]).isEqualTo(1);
    now[0] += LettuceScriptClient.READONLY_DROP_INTERVAL_NANOS - 1;
    client.readOnlyCheck(readOnly);
    assertThat(drops[0]).as("within the interval").isEqualTo(1);
    now[0] += 1;
    client.readOnlyCheck(readOnly);
    assertThat(drops[0]).isEqualTo(2);

    int[] clusterDrops = {0};
    LettuceScriptClient cluster =
        new LettuceScriptClient(null, () -> {}, () -> clusterDrops[0]++, () -> now[0]);
    cluster.readOnlyCheck(readOnly);
    assertThat(clusterDrops[0]).isZero();
  }

  @Test
  void refreshTopology_onClusterOnly_runsTheRefreshEachTime() {
    List<String> refreshes = new ArrayList<>();
    LettuceScriptClient cluster = new LettuceScriptClient(null, () -> refreshes.add("r"));
    LettuceScriptClient standalone = new LettuceScriptClient(null, null);
    assertThat(cluster.isCluster()).isTrue();
    assertThat(standalone.isCluster()).isFalse();
    cluster.refreshTopology();
    cluster.refreshTopology();
    standalone.refreshTopology();
    assertThat(refreshes).as("the backend throttles, the adapter does not").hasSize(2);
  }

  /**
   * A script command is written as itself while its call waits, and as PING once the call has
   * ended, so that a write after a reconnect (which Lettuce makes on Cluster whatever became of the
   * call) changes nothing.
   */
  @Test
  void once_writesTheScriptWhileItsCallWaits_andPingOnceItHasEnded() {
    LettuceScriptClient.Once command =
        new LettuceScriptClient.Once(
            CommandType.EVALSHA,
            new CommandArgs<>(StringCodec.UTF8).add("abc").add(1).addKeys("k").addValues("v"));
    AsyncCommand<String, String, List<Object>> call = new AsyncCommand<>(command);
    command.call = call;
    assertThat(encoded(command))
        .isEqualTo("*5\r\n$7\r\nEVALSHA\r\n$3\r\nabc\r\n$1\r\n1\r\n$1\r\nk\r\n$1\r\nv\r\n");
    call.completeExceptionally(new RedisConnectionException("dropped"));
    assertThat(encoded(command)).isEqualTo("*1\r\n$4\r\nPING\r\n");
  }

  private static String encoded(LettuceScriptClient.Once command) {
    ByteBuf buf = Unpooled.buffer();
    try {
      command.encode(buf);
      return buf.toString(StandardCharsets.US_ASCII);
    } finally {
      buf.release();
    }
  }
}
