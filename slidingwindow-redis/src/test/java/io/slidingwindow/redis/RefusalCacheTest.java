package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RefusalCacheTest {

  private static final Object LAYOUT = new Object();

  private static RefusalCache.Entry refusal(String id, long untilMicros) {
    return new RefusalCache.Entry(id, LAYOUT, untilMicros, 0, 0, 0, 0, 0);
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
    assertThat(cache.find("a", LAYOUT, 99)).isNotNull();
    assertThat(cache.find("a", LAYOUT, -5)).as("a clock read earlier").isNotNull();
    assertThat(cache.find("a", LAYOUT, 100)).isNull();
    assertThat(cache.find(new String("a"), LAYOUT, 50)).as("equal, not identical").isNotNull();
    assertThat(cache.find("b", LAYOUT, 50)).isNull();
  }

  @Test
  void oneSlot_theLatestIdTakesIt() {
    RefusalCache cache = new RefusalCache(1);
    cache.put(refusal("a", 100));
    cache.put(refusal("b", 100));
    assertThat(cache.find("a", LAYOUT, 50)).isNull();
    assertThat(cache.find("b", LAYOUT, 50)).isNotNull();
  }

  @Test
  void find_anotherLayout_isNotRefused() {
    RefusalCache cache = new RefusalCache(16);
    cache.put(refusal("a", 100));
    assertThat(cache.find("a", new Object(), 50)).as("another plan's limits").isNull();
    assertThat(cache.find("a", LAYOUT, 50)).isNotNull();
  }

  @Test
  void forget_theIdOnly() {
    RefusalCache cache = new RefusalCache(1);
    cache.put(refusal("a", 100));
    cache.forget("b");
    assertThat(cache.find("a", LAYOUT, 50)).as("another id's forget").isNotNull();
    cache.forget("a");
    assertThat(cache.find("a", LAYOUT, 50)).isNull();
  }

  @Test
  void find_emptyCache_null() {
    RefusalCache cache = new RefusalCache(8);
    assertThat(cache.find("a", LAYOUT, 0)).isNull();
    assertThat(cache.find("", LAYOUT, Long.MIN_VALUE)).isNull();
  }

  @Test
  void find_entryFound_isThePutEntry() {
    RefusalCache cache = new RefusalCache(4);
    RefusalCache.Entry entry = new RefusalCache.Entry("a", LAYOUT, 100, 3, 10, 20, 30, 1);
    cache.put(entry);
    assertThat(cache.find("a", LAYOUT, 10)).isSameAs(entry);
  }

  /**
   * Ids whose hash codes agree in their low 16 bits and differ above still take different slots:
   * the slot mixes the high half of the hash code in, so such ids do not push each other out.
   */
  @Test
  void put_idsWhoseHashCodesDifferOnlyInTheHighHalf_allKept() {
    RefusalCache cache = new RefusalCache(1 << 16);
    List<String> ids = new ArrayList<>();
    for (int high = 1; high <= 8; high++) {
      char first = (char) (high * 65_536 / 31 + 1);
      char second = (char) (0x4000 + high * 65_536 - first * 31);
      String id = new String(new char[] {first, second});
      assertThat(id.hashCode()).isEqualTo(0x4000 + high * 65_536);
      ids.add(id);
      cache.put(refusal(id, 100));
    }
    for (String id : ids) {
      assertThat(cache.find(id, LAYOUT, 50)).as("hash code %x", id.hashCode()).isNotNull();
    }
  }

  @Test
  void put_manyIds_everySlotInRange() {
    RefusalCache cache = new RefusalCache(64);
    for (int i = 0; i < 10_000; i++) {
      String id = "id" + i;
      cache.put(refusal(id, 100));
      assertThat(cache.find(id, LAYOUT, 0)).isNotNull();
    }
  }
}
