package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Argument checks of the backend factories; none of these reaches the network. */
class RedisBackendTest {

  @Test
  void factories_malformedUriWithPassword_messageAndCausesLeaveThePasswordOut() {
    // "%zz" is no escape: Lettuce refuses the URI and quotes it whole in its own message.
    String secret = "s3cr%zzet";
    List<Runnable> calls =
        List.of(
            () -> RedisBackend.standalone("redis://:" + secret + "@127.0.0.1:6379"),
            () -> RedisBackend.sentinel(List.of("redis://:" + secret + "@127.0.0.1:26379"), "m"),
            () -> RedisBackend.cluster(List.of("redis://user:" + secret + "@127.0.0.1:7000")));
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
    assertThatThrownBy(() -> RedisBackend.standalone(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uri");
    assertThatThrownBy(() -> RedisBackend.standalone("no-scheme:///"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("uri")
        .hasMessageContaining("no-scheme:///");
    assertThatThrownBy(() -> RedisBackend.sentinel(List.of(), "mymaster"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sentinelUris");
    assertThatThrownBy(() -> RedisBackend.sentinel(List.of("redis://127.0.0.1:26379"), ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("masterName");
    assertThatThrownBy(() -> RedisBackend.sentinel(Arrays.asList((String) null), "mymaster"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sentinelUris");
    assertThatThrownBy(() -> RedisBackend.cluster(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("seedUris");
    assertThatThrownBy(() -> RedisBackend.of((RedisClient) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("client");
    assertThatThrownBy(() -> RedisBackend.of((RedisClusterClient) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("client");
    assertThatThrownBy(() -> RedisBackend.of((ScriptClient) null, () -> {}, "adapter"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("client");
  }

  @Test
  void fallbackTo_null_isRejected() {
    assertThatThrownBy(() -> FailurePolicy.fallbackTo(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limiter");
  }
}
