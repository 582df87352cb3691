package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RedisHealthTest {

  @Test
  void nullDetail_isRefusedAsABadArgumentNamingIt() {
    assertThatThrownBy(() -> new RedisHealth(false, null, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("detail must not be null");
  }

  @Test
  void upWithAProblem_isRefused() {
    assertThatThrownBy(() -> new RedisHealth(true, RedisProblem.PERMISSION, "OK"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("PERMISSION");
  }

  @Test
  void downWithoutAProblem_isAccepted() {
    RedisHealth health = new RedisHealth(false, null, "no answer within PT1S");
    assertThat(health.up()).isFalse();
    assertThat(health.problem()).isNull();
  }
}
