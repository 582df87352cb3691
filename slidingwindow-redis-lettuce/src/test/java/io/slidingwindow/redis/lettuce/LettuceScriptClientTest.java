package io.slidingwindow.redis.lettuce;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisNoScriptException;
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
}
