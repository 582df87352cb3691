package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RefusalCacheTest {

  private static RefusalCache.Entry refusal(String id, long untilMicros) {
    return new RefusalCache.Entry(id, untilMicros, 0, 0, 0, 0, 0);
  }

  @Test
  void slots_roundedUpToAPowerOfTwo() {
    assertThat(new RefusalCache(1).size()).isEqualTo(1);
    assertThat(new RefusalCache(2).size()).isEqualTo(2);
    assertThat(new RefusalCache(3).size()).isEqualTo(4);
    assertThat(new RefusalCache(4096).size()).isEqualTo(4096);
    assertThat(new RefusalCache(RefusalCache.MAX_SLOTS).size()).isEqualTo(RefusalCache.MAX_SLOTS);
  }

  @Test
  void find_onlyTheSameIdBeforeItsEnd() {
    RefusalCache cache = new RefusalCache(16);
    cache.put(refusal("a", 100));
    assertThat(cache.find("a", 99)).isNotNull();
    assertThat(cache.find("a", -5)).as("a clock read earlier").isNotNull();
    assertThat(cache.find("a", 100)).isNull();
    assertThat(cache.find(new String("a"), 50)).as("equal, not identical").isNotNull();
    assertThat(cache.find("b", 50)).isNull();
  }

  @Test
  void oneSlot_theLatestIdTakesIt() {
    RefusalCache cache = new RefusalCache(1);
    cache.put(refusal("a", 100));
    cache.put(refusal("b", 100));
    assertThat(cache.find("a", 50)).isNull();
    assertThat(cache.find("b", 50)).isNotNull();
  }
}
