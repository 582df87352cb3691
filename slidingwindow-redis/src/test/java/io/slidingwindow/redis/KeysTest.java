package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.cluster.SlotHash;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class KeysTest {

  private static final List<String> AWKWARD_IDS =
      List.of(
          "",
          "{",
          "}",
          "{}",
          "}{",
          "a{b}c",
          "{user}",
          "\r\n",
          "line\r\nbreak",
          "\0",
          "\u00ff\u00fe binary-ish \u0001\u007f",
          "\uD800",
          "\uDC00lone low",
          "\uD83D\uDE00 emoji",
          "x".repeat(Keys.MAX_ID_BYTES),
          "é".repeat(Keys.MAX_ID_BYTES / 2));

  @Test
  void tagged_awkwardIds_allKeysOfAnIdShareOneSlot() {
    for (String id : AWKWARD_IDS) {
      String tagged = Keys.tagged("sw", id);
      List<String> keys = List.of(tagged + "5:1000000:1000", tagged + "100:60000000:60000", tagged + "c:60:1000000");
      int slot = SlotHash.getSlot(keys.get(0));
      for (String key : keys) {
        assertThat(SlotHash.getSlot(key)).as("slot of %s for id %s", key, escape(id)).isEqualTo(slot);
        assertThat(key.indexOf('{')).as("one opening brace in %s", key).isEqualTo(key.lastIndexOf('{'));
        assertThat(key.indexOf('}')).as("one closing brace in %s", key).isEqualTo(key.lastIndexOf('}'));
        assertThat(key.indexOf('}') - key.indexOf('{')).as("non-empty tag in %s", key).isGreaterThan(1);
      }
    }
  }

  @Test
  void tagged_distinctIds_distinctTags() {
    Set<String> tags = new HashSet<>();
    for (String id : AWKWARD_IDS) {
      tags.add(Keys.tagged("sw", id));
    }
    tags.add(Keys.tagged("sw", "?")); // what a lone surrogate would become in lossy UTF-8
    tags.add(Keys.tagged("sw", "\uFFFD"));
    assertThat(tags).hasSize(AWKWARD_IDS.size() + 2);
  }

  @Test
  void tagged_idPastTheCap_isRejectedNamingKeyAndLength() {
    assertThatThrownBy(() -> Keys.tagged("sw", "x".repeat(Keys.MAX_ID_BYTES + 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key")
        .hasMessageContaining(Integer.toString(Keys.MAX_ID_BYTES + 1));
    assertThatThrownBy(() -> Keys.tagged("sw", "é".repeat(Keys.MAX_ID_BYTES / 2 + 1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Integer.toString(Keys.MAX_ID_BYTES + 2));
    assertThatThrownBy(() -> Keys.tagged("sw", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
  }

  @Test
  void checkPrefix_bracesOrEmpty_areRejected() {
    for (String bad : new String[] {"", "a{", "}b", "{x}"}) {
      assertThatThrownBy(() -> Keys.checkPrefix(bad))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("keyPrefix");
    }
    assertThatThrownBy(() -> Keys.checkPrefix(null)).isInstanceOf(IllegalArgumentException.class);
    assertThat(Keys.checkPrefix("app:rl")).isEqualTo("app:rl");
  }

  private static String escape(String id) {
    StringBuilder s = new StringBuilder();
    id.chars().limit(20).forEach(c -> s.append(c < 32 || c > 126 ? String.format("\\u%04x", c) : String.valueOf((char) c)));
    return s.toString();
  }
}
