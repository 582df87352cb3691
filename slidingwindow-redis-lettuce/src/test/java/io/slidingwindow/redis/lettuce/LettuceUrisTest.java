package io.slidingwindow.redis.lettuce;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The Sentinel target's credentials, read through the credentials provider (as on Lettuce 7, which
 * has no {@code RedisURI.getPassword()}).
 */
class LettuceUrisTest {

  private static RedisCredentials credentials(RedisURI uri) {
    return uri.getCredentialsProvider().resolveCredentials().block();
  }

  @Test
  void sentinelTarget_sentinelPassword_goesToTheSentinelsWithoutTheirOwn() {
    RedisURI target =
        LettuceUris.sentinelTarget(
            List.of("redis://127.0.0.1:26379", "redis://own@127.0.0.1:26380"),
            "mymaster",
            "app",
            "data".toCharArray(),
            "shared".toCharArray());

    assertThat(target.getSentinelMasterId()).isEqualTo("mymaster");
    assertThat(credentials(target).getUsername()).isEqualTo("app");
    assertThat(credentials(target).getPassword()).containsExactly("data".toCharArray());
    List<RedisURI> sentinels = target.getSentinels();
    assertThat(sentinels).extracting(RedisURI::getPort).containsExactly(26379, 26380);
    assertThat(credentials(sentinels.get(0)).getPassword()).containsExactly("shared".toCharArray());
    assertThat(credentials(sentinels.get(1)).getPassword()).containsExactly("own".toCharArray());
  }

  @Test
  void sentinelTarget_noSentinelPassword_leavesTheSentinelsWithout() {
    RedisURI target =
        LettuceUris.sentinelTarget(
            List.of("redis://127.0.0.1:26379"), "mymaster", null, null, null);

    assertThat(credentials(target.getSentinels().get(0)).hasPassword()).isFalse();
  }

  @Test
  void sentinelTarget_sentinelPassword_readsTheParsedUriNotItsSpelling() {
    char[] shared = "shared".toCharArray();
    RedisURI target =
        LettuceUris.sentinelTarget(
            List.of(
                "redis://127.0.0.1:26379?clientName=a@b",
                "redis://user:@127.0.0.1:26380",
                "redis-socket:///tmp/sentinel.sock"),
            "mymaster",
            null,
            null,
            shared);
    java.util.Arrays.fill(shared, 'x'); // a caller that wipes its array once the factory returns

    assertThat(target.getSentinels())
        .allSatisfy(
            sentinel ->
                assertThat(credentials(sentinel).getPassword())
                    .containsExactly("shared".toCharArray()));
  }
}
