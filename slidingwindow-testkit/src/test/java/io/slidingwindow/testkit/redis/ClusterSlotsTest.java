package io.slidingwindow.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Slots against the values the Redis Cluster specification and redis-cli print. */
class ClusterSlotsTest {

  @Test
  void crc16_checkValue_isXmodems() {
    byte[] digits = "123456789".getBytes(StandardCharsets.US_ASCII);
    assertThat(ClusterSlots.crc16(digits, 0, digits.length)).isEqualTo(0x31C3);
  }

  @Test
  void slot_knownKeys_matchRedis() {
    assertThat(ClusterSlots.slot("foo")).isEqualTo(12182);
    assertThat(ClusterSlots.slot("hello")).isEqualTo(866);
    assertThat(ClusterSlots.slot("123456789")).isEqualTo(0x31C3);
  }

  @Test
  void slot_hashTags_followTheSpecification() {
    assertThat(ClusterSlots.slot("{user1000}.following"))
        .isEqualTo(ClusterSlots.slot("{user1000}.followers"))
        .isEqualTo(ClusterSlots.slot("user1000"));
    assertThat(ClusterSlots.slot("foo{}{bar}"))
        .as("empty tag: the whole key")
        .isEqualTo(slotOfAll("foo{}{bar}"));
    assertThat(ClusterSlots.slot("foo{{bar}}zap")).isEqualTo(ClusterSlots.slot("{bar"));
    assertThat(ClusterSlots.slot("foo{bar}{zap}")).isEqualTo(ClusterSlots.slot("bar"));
    assertThat(ClusterSlots.slot("no tag {here")).isEqualTo(slotOfAll("no tag {here"));
  }

  private static int slotOfAll(String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    return ClusterSlots.crc16(bytes, 0, bytes.length) % ClusterSlots.SLOTS;
  }
}
