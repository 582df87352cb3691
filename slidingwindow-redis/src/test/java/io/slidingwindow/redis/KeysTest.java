package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.LimiterKeys;
import io.slidingwindow.testkit.redis.ClusterSlots;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class KeysTest {

  /**
   * The longest tag: the marker and the Base64 of a stored key of at most 256 characters, 3 bytes
   * each in UTF-8 (2 each in the UTF-16 form of malformed strings).
   */
  private static final int TAG_BOUND = 1 + 4 * (3 * LimiterKeys.MAX_CHARS / 3);

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
          "x".repeat(LimiterKeys.MAX_CHARS),
          "x".repeat(LimiterKeys.MAX_CHARS + 1),
          "x".repeat(1_100),
          "é".repeat(100_000),
          "\uD800".repeat(5_000),
          LimiterKeys.DIGEST_PREFIX + "spelled");

  @Test
  void tagged_awkwardIds_allKeysOfAnIdShareOneSlot() {
    for (String id : AWKWARD_IDS) {
      String tagged = Keys.tagged("sw", id);
      List<String> keys =
          List.of(
              tagged + "5:1000000:1000", tagged + "100:60000000:60000", tagged + "c:60:1000000");
      int slot = ClusterSlots.slot(keys.get(0));
      for (String key : keys) {
        assertThat(ClusterSlots.slot(key))
            .as("slot of %s for id %s", key, escape(id))
            .isEqualTo(slot);
        assertThat(key.indexOf('{'))
            .as("one opening brace in %s", key)
            .isEqualTo(key.lastIndexOf('{'));
        assertThat(key.indexOf('}'))
            .as("one closing brace in %s", key)
            .isEqualTo(key.lastIndexOf('}'));
        assertThat(key.indexOf('}') - key.indexOf('{'))
            .as("non-empty tag in %s", key)
            .isGreaterThan(1);
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

  /**
   * Ids that differ only in which unpaired surrogate they hold: a charset encoder turns each into
   * U+FFFD, so these shared one tag (and one window) before the tag kept every code unit.
   */
  @Test
  void tagged_idsDifferingOnlyInALoneSurrogate_distinctTags() {
    List<String> ids =
        List.of("\uD800x", "\uDC00x", "\uDBFFx", "\uDFFFx", "\uFFFDx", "?x", "x\uD800", "x\uDC00");
    Set<String> tags = new HashSet<>();
    for (String id : ids) {
      tags.add(Keys.tagged("sw", id));
    }
    assertThat(tags).hasSize(ids.size());
  }

  @Test
  void tagged_loneSurrogates_decodeBackToTheId() {
    for (String id :
        List.of("\uD800", "\uDC00", "a\uDBFF\uDBFFb", "\uDC00\uD800", "\uD83D\uDE00\uD83D")) {
      assertThat(decode(Keys.tagged("sw", id))).isEqualTo(id);
    }
  }

  /** Strings over an alphabet rich in surrogates, braces and multi-byte characters. */
  @Provide
  Arbitrary<String> awkwardStrings() {
    return Arbitraries.strings()
        .withChars('\uD800', '\uDBFF', '\uDC00', '\uDFFF', '\uFFFD', '?', '{', '}', '\0', 'a', 'é')
        .withCharRange('\uD83D', '\uD83E')
        .withCharRange('\uDE00', '\uDE01')
        .ofMaxLength(12);
  }

  /** The tag is a lossless encoding: decoding it gives the id back, so two ids never share one. */
  @Property(tries = 2000)
  void tagged_anyString_decodesBackToTheId(@ForAll("awkwardStrings") String id) {
    assertThat(decode(Keys.tagged("sw", id))).isEqualTo(id);
  }

  @Property(tries = 2000)
  void tagged_anyString_allKeysShareTheSlotOfTheTag(@ForAll("awkwardStrings") String id) {
    String tagged = Keys.tagged("sw", id);
    String tag = tagged.substring(tagged.indexOf('{') + 1, tagged.indexOf('}'));
    int slot = ClusterSlots.slot(tag);
    assertThat(ClusterSlots.slot(tagged + "5:1000000:1000")).isEqualTo(slot);
    assertThat(ClusterSlots.slot(tagged + "c:60:1000000")).isEqualTo(slot);
  }

  /**
   * An id of any length is keyed: beyond 256 characters (or spelled with the digest prefix) by its
   * digest, so the tag never grows past a fixed bound, and ids that differ anywhere keep apart.
   */
  @Test
  void tagged_idsOfAnyLength_boundedTagsThatStayApart() {
    String base = "k".repeat(10_000);
    Set<String> tags = new HashSet<>();
    for (String id :
        List.of(
            base,
            base + "x",
            "x" + base,
            new StringBuilder(base).replace(7_777, 7_778, "j").toString())) {
      String tagged = Keys.tagged("sw", id);
      assertThat(tagged).isEqualTo(Keys.taggedStored("sw", LimiterKeys.bounded(id)));
      assertThat(tagged.length()).isLessThanOrEqualTo("sw:{}:".length() + TAG_BOUND);
      tags.add(tagged);
    }
    assertThat(tags).hasSize(4);
    String atTheLimit = "é".repeat(LimiterKeys.MAX_CHARS);
    assertThat(decode(Keys.tagged("sw", atTheLimit))).as("kept as it is").isEqualTo(atTheLimit);
    assertThat(Keys.tagged("sw", LimiterKeys.DIGEST_PREFIX + "x"))
        .as("a short id spelled like a digest is digested too")
        .isNotEqualTo(Keys.taggedStored("sw", LimiterKeys.DIGEST_PREFIX + "x"));
  }

  @Property(tries = 300)
  void tagged_anyStringOfAnyLength_tagWithinTheBound(@ForAll("longStrings") String id) {
    String tagged = Keys.tagged("sw", id);
    assertThat(tagged.length()).isLessThanOrEqualTo("sw:{}:".length() + TAG_BOUND);
    String tag = tagged.substring(tagged.indexOf('{') + 1, tagged.indexOf('}'));
    assertThat(ClusterSlots.slot(tagged + "5:1000000:1000")).isEqualTo(ClusterSlots.slot(tag));
  }

  @Provide
  Arbitrary<String> longStrings() {
    return Arbitraries.strings()
        .withChars('\uD800', '\uDC00', '{', '}', '\0', 'a', 'é', '\uFFFF')
        .withCharRange('\u4E00', '\u4E10')
        .ofMaxLength(3 * LimiterKeys.MAX_CHARS);
  }

  @Test
  void tagged_nullId_isRejectedNamingTheKey() {
    assertThatThrownBy(() -> Keys.tagged("sw", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
  }

  @Test
  void checkPrefix_unpairedSurrogate_isRejectedNamingItsIndex() {
    assertThatThrownBy(() -> Keys.checkPrefix("app\uDC00"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("keyPrefix")
        .hasMessageContaining("unpaired surrogate at index 3");
    assertThatThrownBy(() -> Keys.checkPrefix("a\uD800b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unpaired surrogate at index 1");
    assertThat(Keys.checkPrefix("app\uD83D\uDE00")).isEqualTo("app\uD83D\uDE00");
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

  /** The id a tagged prefix was built from, read back from its tag. */
  private static String decode(String tagged) {
    String tag = tagged.substring(tagged.indexOf('{') + 1, tagged.indexOf('}'));
    byte[] bytes = Base64.getUrlDecoder().decode(tag.substring(1));
    if (tag.charAt(0) == 'u') {
      return new String(bytes, StandardCharsets.UTF_8);
    }
    assertThat(tag.charAt(0)).isEqualTo('w');
    char[] units = new char[bytes.length / 2];
    for (int i = 0; i < units.length; i++) {
      units[i] = (char) (((bytes[2 * i] & 0xff) << 8) | (bytes[2 * i + 1] & 0xff));
    }
    return new String(units);
  }

  private static String escape(String id) {
    StringBuilder s = new StringBuilder();
    id.chars()
        .limit(20)
        .forEach(
            c ->
                s.append(
                    c < 32 || c > 126 ? String.format("\\u%04x", c) : String.valueOf((char) c)));
    return s.toString();
  }
}
