package io.slidingwindow.spring.boot.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The key prefix of a rule's Redis keys: distinct rule names never share one, names that need no
 * escaping keep the prefix they always had, and no prefix holds a brace (a brace would move the
 * Cluster hash tag).
 */
class RuleKeyPrefixTest {

  /** Names that an unescaped or half-escaped mapping would send to one prefix. */
  private static final List<String> ADVERSARIAL =
      List.of(
          "",
          "x",
          "gateway.x",
          "gateway.gateway.x",
          "a{b}",
          "a(b)",
          "a{b)",
          "a(b}",
          "gateway.a{b}",
          "gateway.a(b)",
          "a%7Bb%7D",
          "a%28b%29",
          "a%b",
          "a%25b",
          "a%%b",
          "%",
          "%%",
          "%25",
          "%7B",
          "%7D",
          "{",
          "}",
          "(",
          ")",
          "{}",
          "()",
          "a:b",
          "a::b",
          "a:{b}",
          "a:(b)",
          "a:%7Bb%7D",
          "A{B}",
          "{u}",
          "health");

  @Test
  void distinctNames_neverShareAPrefix() {
    Map<String, String> seen = new HashMap<>();
    for (String name : ADVERSARIAL) {
      String prefix = RuleKeyPrefix.of("sw", name);
      assertThat(seen.putIfAbsent(prefix, name))
          .as("rules '%s' and '%s' share the prefix %s", seen.get(prefix), name, prefix)
          .isNull();
    }
  }

  @Test
  void randomNamesOverTheEscapedAlphabet_neverShareAPrefix() {
    char[] alphabet = {'{', '}', '(', ')', '%', '7', 'B', 'D', '2', '5', 'a', ':', '.'};
    Random random = new Random(7);
    Map<String, String> seen = new HashMap<>();
    for (int i = 0; i < 200_000; i++) {
      char[] name = new char[random.nextInt(7)];
      for (int j = 0; j < name.length; j++) {
        name[j] = alphabet[random.nextInt(alphabet.length)];
      }
      String text = new String(name);
      String prefix = RuleKeyPrefix.of("sw", text);
      String before = seen.putIfAbsent(prefix, text);
      assertThat(before == null || before.equals(text))
          .as("rules '%s' and '%s' share the prefix %s", before, text, prefix)
          .isTrue();
    }
  }

  @Test
  void noPrefix_holdsABrace() {
    for (String name : ADVERSARIAL) {
      assertThat(RuleKeyPrefix.of("sw", name)).doesNotContain("{", "}");
    }
  }

  @Test
  void namesThatNeedNoEscaping_keepTheirPrefix() {
    assertThat(RuleKeyPrefix.of("sw", "orders")).isEqualTo("sw:orders");
    assertThat(RuleKeyPrefix.of("sw", "gateway.orders")).isEqualTo("sw:gateway.orders");
    assertThat(RuleKeyPrefix.of("app", "Api.order:v2_x-y")).isEqualTo("app:Api.order:v2_x-y");
    assertThat(RuleKeyPrefix.of("sw", "gateway.a(b) c")).isEqualTo("sw:gateway.a(b) c");
  }

  @Test
  void bracesAndTheEscapeCharacter_arePercentEncoded() {
    assertThat(RuleKeyPrefix.of("sw", "gateway.a{b}")).isEqualTo("sw:gateway.a%7Bb%7D");
    assertThat(RuleKeyPrefix.of("sw", "gateway.a%7Bb%7D")).isEqualTo("sw:gateway.a%257Bb%257D");
  }
}
