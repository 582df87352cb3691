package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class LimiterKeysTest {

  @Test
  void bounded_shortKey_isKeptAsIs() {
    String key = "k".repeat(LimiterKeys.MAX_CHARS);
    assertThat(LimiterKeys.bounded(key)).isSameAs(key);
    assertThat(LimiterKeys.bounded("")).isEmpty();
    assertThat(LimiterKeys.isKeptAsIs(key)).isTrue();
  }

  @Test
  void bounded_oneCharacterOverTheBound_isDigested() {
    String key = "k".repeat(LimiterKeys.MAX_CHARS + 1);
    String stored = LimiterKeys.bounded(key);
    assertThat(stored).startsWith(LimiterKeys.DIGEST_PREFIX).hasSize(7 + 43);
    assertThat(LimiterKeys.isKeptAsIs(key)).isFalse();
  }

  @Test
  void bounded_shortKeyThatSpellsTheDigestPrefix_isDigestedToo() {
    String longKey = "x".repeat(1_100);
    String spelled = LimiterKeys.bounded(longKey);
    // A client that sends the digest of another key as its own key gets a different key.
    assertThat(LimiterKeys.bounded(spelled)).isNotEqualTo(spelled);
    assertThat(LimiterKeys.isKeptAsIs(spelled)).isFalse();
  }

  @Test
  void bounded_null_throws() {
    assertThatThrownBy(() -> LimiterKeys.bounded(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("key must not be null");
    assertThat(LimiterKeys.isKeptAsIs(null)).isFalse();
  }

  @Test
  void bounded_loneSurrogates_digestAsTheyAre() {
    String a = "a".repeat(300) + '\uD800';
    String b = "a".repeat(300) + '\uDBFF';
    // A charset encoder would turn both into '?' and give them one key.
    assertThat(a.getBytes(StandardCharsets.UTF_8)).isEqualTo(b.getBytes(StandardCharsets.UTF_8));
    assertThat(LimiterKeys.bounded(a)).isNotEqualTo(LimiterKeys.bounded(b));
  }

  @Property(tries = 2_000)
  void bounded_isInjectiveAndShort(@ForAll("keys") String a, @ForAll("keys") String b) {
    String sa = LimiterKeys.bounded(a);
    String sb = LimiterKeys.bounded(b);
    assertThat(sa.equals(sb)).isEqualTo(a.equals(b));
    assertThat(sa.length()).isLessThanOrEqualTo(LimiterKeys.MAX_CHARS);
    assertThat(sa.getBytes(StandardCharsets.UTF_8).length)
        .isLessThanOrEqualTo(3 * LimiterKeys.MAX_CHARS);
  }

  @Property(tries = 200)
  void bounded_manyKeys_noTwoShareAStoredKey(@ForAll("keyLists") java.util.List<String> keys) {
    Map<String, String> seen = new HashMap<>();
    for (String key : keys) {
      String previous = seen.putIfAbsent(LimiterKeys.bounded(key), key);
      assertThat(previous == null || previous.equals(key)).as("%s and %s", previous, key).isTrue();
    }
  }

  @Provide
  Arbitrary<String> keys() {
    Arbitrary<String> any = Arbitraries.strings().all().ofMaxLength(600);
    Arbitrary<String> atTheBound =
        Arbitraries.strings()
            .withChars("ab:\uD800\uDC00")
            .ofMinLength(LimiterKeys.MAX_CHARS - 2)
            .ofMaxLength(LimiterKeys.MAX_CHARS + 2);
    Arbitrary<String> spellingADigest =
        any.map(LimiterKeys::bounded).map(s -> s.length() > 3 ? s : LimiterKeys.DIGEST_PREFIX + s);
    return Arbitraries.oneOf(any, atTheBound, spellingADigest);
  }

  @Provide
  Arbitrary<java.util.List<String>> keyLists() {
    return keys().list().ofMaxSize(50);
  }
}
