package io.slidingwindow.server.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.server.settings.Secret;
import io.slidingwindow.server.settings.Settings;
import io.slidingwindow.server.settings.Settings.RedisMode;
import java.util.List;
import org.junit.jupiter.api.Test;

class RedisStoreTest {

  private static Settings.Redis redis(String username, String password, String... uris) {
    return new Settings.Redis(
        RedisMode.CLUSTER,
        List.of(uris),
        null,
        username,
        password == null ? null : Secret.of(password.toCharArray(), "password"),
        null);
  }

  @Test
  void withCredentials_passwordAndUser_writtenPercentEncodedIntoTheUri() {
    Settings.Redis redis = redis("app user", "p@ss:w/rd é", "rediss://r.example:6380/0");

    assertThat(RedisStore.withCredentials("rediss://r.example:6380/0", redis))
        .isEqualTo("rediss://app%20user:p%40ss%3Aw%2Frd%20%C3%A9@r.example:6380/0");
    assertThat(RedisStore.withCredentials("redis://r:1", redis(null, "s", "redis://r:1")))
        .isEqualTo("redis://:s@r:1");
    assertThat(RedisStore.withCredentials("redis://r:1", redis(null, null, "redis://r:1")))
        .isEqualTo("redis://r:1");
  }

  @Test
  void withCredentials_uriWithCredentialsToo_refusedWithoutShowingThem() {
    Settings.Redis redis = redis(null, "other", "redis://:mine@r:1");

    assertThatThrownBy(() -> RedisStore.withCredentials("redis://:mine@r:1", redis))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("give them in one place")
        .hasMessageNotContaining("mine")
        .hasMessageNotContaining("other");
  }

  @Test
  void describe_namesTheStoreAndCredentialsWithoutPasswords() {
    assertThat(RedisStore.describe(redis("app", "secret", "redis://:x@a:1", "redis://b:2")))
        .isEqualTo("cluster [redis://:***@a:1, redis://b:2] as app with a password");
  }
}
