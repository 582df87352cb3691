package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedisUrisTest {

  @Test
  void mask_userAndPassword_keepsTheUser() {
    assertThat(RedisUris.mask("redis://app:s3cret@10.0.0.5:6379/2"))
        .isEqualTo("redis://app:***@10.0.0.5:6379/2");
  }

  @Test
  void mask_passwordAlone_masksIt() {
    assertThat(RedisUris.mask("rediss://s3cret@10.0.0.5:6380"))
        .isEqualTo("rediss://***@10.0.0.5:6380");
  }

  @Test
  void mask_emptyUser_masksThePassword() {
    assertThat(RedisUris.mask("redis://:s3cret@h:1")).isEqualTo("redis://:***@h:1");
  }

  @Test
  void mask_everyUriInAList_masksEach() {
    assertThat(RedisUris.mask("[redis://a:p1@h1:1, redis-sentinel://p2@h2:2]"))
        .isEqualTo("[redis://a:***@h1:1, redis-sentinel://***@h2:2]");
  }

  @Test
  void mask_noCredentials_unchanged() {
    assertThat(RedisUris.mask("redis://127.0.0.1:6379")).isEqualTo("redis://127.0.0.1:6379");
    assertThat(RedisUris.mask(null)).isNull();
  }

  @Test
  void mask_passwordHoldingAt_masksItWhole() {
    assertThat(RedisUris.mask("standalone redis://u:p@ss@h:6379"))
        .isEqualTo("standalone redis://u:***@h:6379");
    assertThat(RedisUris.mask("sentinel [redis://:pw@h:1, rediss://u:p@h2:2] mymaster"))
        .isEqualTo("sentinel [redis://:***@h:1, rediss://u:***@h2:2] mymaster");
  }
}
