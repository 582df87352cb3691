package io.slidingwindow.redis.lettuce;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Argument checks of the backend factories; none of these reaches the network. */
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
}
