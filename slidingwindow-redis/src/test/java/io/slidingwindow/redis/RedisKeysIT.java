package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FailingLimiter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Ids holding unpaired surrogates against a real redis-server: ids that a charset encoder maps to
 * the same bytes (every lone surrogate becomes U+FFFD in UTF-16, '?' in UTF-8) keep separate
 * windows, in the limiter and in the counters.
 */
class RedisKeysIT {

  /** Three ids a charset encoder cannot tell apart. */
  private static final List<String> LOOK_ALIKES = List.of("ka\uD800", "ka\uDC00", "ka\uDBFF");

  @Test
  void lookAlikeIds_encodedByACharset_wouldShareBytes() {
    byte[] first = LOOK_ALIKES.get(0).getBytes(StandardCharsets.UTF_16BE);
    for (String id : LOOK_ALIKES) {
      assertThat(id.getBytes(StandardCharsets.UTF_16BE)).isEqualTo(first);
      assertThat(new String(id.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))
          .isEqualTo("ka?");
    }
  }

  @Test
  void limiter_lookAlikeIds_haveOneWindowEach() {
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(SharedRedis.backend())
            .keyPrefix("keys-it-limiter")
            .limit(Limit.of(1, Duration.ofMinutes(1)))
            .commandTimeout(Duration.ofSeconds(5))
            .failurePolicy(FailurePolicy.fallbackTo(new FailingLimiter()))
            .refusalCache(0)
            .build();
    assertThat(limiter.tryAcquire("ka?", 1)).isTrue();
    for (String id : LOOK_ALIKES) {
      assertThat(limiter.tryAcquire(id, 1)).as("the first permit of its own window").isTrue();
      assertThat(limiter.tryAcquire(id, 1)).as("its window is full").isFalse();
    }
    assertThat(SharedRedis.server().cli("KEYS", "keys-it-limiter:*").lines().count())
        .as("one key per id")
        .isEqualTo(LOOK_ALIKES.size() + 1);
    for (String id : LOOK_ALIKES) {
      assertThat(SharedRedis.server().cli("EXISTS", limiter.keysOf(id).get(0))).isEqualTo("1");
    }
  }

  @Test
  void counters_lookAlikeIds_keepSeparateSums() {
    RedisCounters counters =
        RedisCounters.builder(SharedRedis.backend())
            .keyPrefix("keys-it-counters")
            .size(10)
            .interval(Duration.ofSeconds(6))
            .commandTimeout(Duration.ofSeconds(5))
            .build();
    for (int i = 0; i < LOOK_ALIKES.size(); i++) {
      assertThat(counters.addAndGet(LOOK_ALIKES.get(i), 10L * (i + 1))).isEqualTo(10L * (i + 1));
    }
    for (int i = 0; i < LOOK_ALIKES.size(); i++) {
      assertThat(counters.sum(LOOK_ALIKES.get(i))).isEqualTo(10L * (i + 1));
      assertThat(counters.count(LOOK_ALIKES.get(i))).isEqualTo(1);
    }
    assertThat(counters.sum("ka?")).isZero();
  }

  @Test
  void builders_prefixWithALoneSurrogate_areRejected() {
    assertThatThrownBy(() -> RedisRateLimiter.builder(SharedRedis.backend()).keyPrefix("sw\uD800"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unpaired surrogate at index 2");
    assertThatThrownBy(() -> RedisCounters.builder(SharedRedis.backend()).keyPrefix("\uDC00sw"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unpaired surrogate at index 0");
  }
}
