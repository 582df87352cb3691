package io.slidingwindow.spring.boot.actuator;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisProblem;
import io.slidingwindow.redis.ScriptClient;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The health check's explanation of a {@code READONLY} reply: a limiter pointed at a replica is
 * told to point at the master, and a client that finds the master again by itself (Sentinel) is
 * told that the master was demoted and that the backend is asking Sentinel, since pointing it at
 * "the master" is what it already does.
 */
class RedisHealthProbeTest {

  private static final String READONLY = "READONLY You can't write against a read only replica.";

  @Test
  void readOnlyReply_ofAClientPointedAtTheServer_saysPointAtTheMaster() throws Exception {
    try (RedisBackend backend = RedisBackend.of(new ReadOnly(false), () -> {}, "replica")) {
      RedisHealthProbe.Result result =
          new RedisHealthProbe(backend, null, Duration.ofSeconds(1)).run();

      assertThat(result.up()).isFalse();
      assertThat(result.details())
          .containsEntry("problem", "READ_ONLY_REPLICA")
          .containsEntry("explanation", RedisProblem.READ_ONLY_REPLICA.explanation());
    }
  }

  @Test
  void readOnlyReply_ofAClientThatFindsTheMasterAgain_saysTheMasterWasDemoted() throws Exception {
    try (RedisBackend backend = RedisBackend.of(new ReadOnly(true), () -> {}, "sentinel")) {
      RedisHealthProbe.Result result =
          new RedisHealthProbe(backend, null, Duration.ofSeconds(1)).run();

      assertThat(result.up()).isFalse();
      assertThat(result.details()).containsEntry("problem", "READ_ONLY_REPLICA");
      assertThat((String) result.details().get("explanation"))
          .contains("demoted")
          .contains("asks Sentinel for the master again")
          .doesNotContain("point the limiter at the master");
    }
  }

  /**
   * A client every call of which Redis answers {@code READONLY} (an {@link IllegalStateException}
   * stands for the error reply).
   */
  private record ReadOnly(boolean findsMasterAgain) implements ScriptClient {

    @Override
    public CompletableFuture<List<Object>> evalsha(String sha1, String[] keys, String[] args) {
      return CompletableFuture.failedFuture(new IllegalStateException(READONLY));
    }

    @Override
    public CompletableFuture<List<Object>> eval(String script, String[] keys, String[] args) {
      return evalsha(script, keys, args);
    }

    @Override
    public String errorReply(Throwable failure) {
      return failure instanceof IllegalStateException ? failure.getMessage() : null;
    }

    @Override
    public void refreshTopology() {}

    @Override
    public boolean isCluster() {
      return false;
    }
  }
}
