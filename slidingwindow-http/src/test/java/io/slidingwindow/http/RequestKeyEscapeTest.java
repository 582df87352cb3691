package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Locale;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * The namespace escape of {@link RequestKey}: a key's text parses back into its source and contents
 * in exactly one way only if the escaped contents never hold a raw {@code : | ( )} and every {@code
 * %} starts one of the five escapes. Checked over adversarial strings: short runs of the special
 * characters, the escapes' own spellings and letters, at every position.
 */
class RequestKeyEscapeTest {

  @Provide
  Arbitrary<String> adversarial() {
    return Arbitraries.oneOf(
            Arbitraries.of("%", ":", "|", "(", ")", "a", "Z", "%25", "%3A", "%7C", "%28", "%29"),
            Arbitraries.strings().ofMaxLength(2))
        .list()
        .ofMaxSize(6)
        .map(parts -> String.join("", parts));
  }

  @Property(tries = 1000)
  void escape_anyText_holdsNoSeparatorAndDecodesBackToIt(@ForAll("adversarial") String text) {
    String escaped = RequestKey.escape(text);
    assertThat(escaped).doesNotContain(":", "|", "(", ")");
    assertThat(unescape(escaped)).isEqualTo(text);
  }

  /**
   * Two keys built from different sources or contents never share a value: each is built from its
   * kind (custom, principal, a one-part tuple, header, a two-part tuple) and one or two texts.
   */
  @Property(tries = 1000)
  void value_keysOfDifferentSourcesOrContents_neverCollide(
      @ForAll("keys") List<Object> first, @ForAll("keys") List<Object> second) {
    if (!first.equals(second)) {
      assertThat(build(first).value())
          .as("%s and %s", first, second)
          .isNotEqualTo(build(second).value());
    } else {
      assertThat(build(first)).isEqualTo(build(second));
    }
  }

  @Provide
  Arbitrary<List<Object>> keys() {
    Arbitrary<String> text = adversarial();
    return Combinators.combine(Arbitraries.integers().between(0, 4), text, text)
        .as(
            (kind, a, b) ->
                // Header names compare case-insensitively and without surrounding blanks.
                List.of(
                    kind,
                    kind == 3 ? ("h" + a).trim().toLowerCase(Locale.ROOT) : a,
                    kind >= 3 ? b : ""));
  }

  private static RequestKey build(List<Object> identity) {
    int kind = (Integer) identity.get(0);
    String a = (String) identity.get(1);
    String b = (String) identity.get(2);
    return switch (kind) {
      case 0 -> RequestKey.custom(a);
      case 1 -> RequestKey.principal(a);
      case 2 -> RequestKey.of(a);
      case 3 -> RequestKey.header(a, b);
      default -> RequestKey.of(RequestKey.custom(a), RequestKey.principal(b));
    };
  }

  @Test
  void header_namesOfSeparatorsOnly_stayApartFromTheirValues() {
    assertThat(RequestKey.header(":", ":a")).isNotEqualTo(RequestKey.header("::", "a"));
    assertThat(RequestKey.header(":", ":a").value()).isEqualTo("header:%3A:%3Aa");
  }

  @Test
  void escape_textStartingOrEndingWithASeparator_escapesEveryOne() {
    assertThat(RequestKey.escape(":a")).isEqualTo("%3Aa");
    assertThat(RequestKey.escape("a:")).isEqualTo("a%3A");
    assertThat(RequestKey.escape("%")).isEqualTo("%25");
    assertThat(RequestKey.escape("(|)")).isEqualTo("%28%7C%29");
    assertThat(RequestKey.escape("plain")).isEqualTo("plain");
  }

  @Test
  void sources_nullContent_throwIllegalArgumentNamingIt() {
    assertThatThrownBy(() -> RequestKey.custom(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("value must not be null");
    assertThatThrownBy(() -> RequestKey.principal(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("name must not be null");
    assertThatThrownBy(() -> RequestKey.header("X-Key", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("value must not be null");
    assertThatThrownBy(() -> RequestKey.header(null, "v"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("header name must not be blank, was 'null'");
    assertThatThrownBy(() -> RequestKey.of("a", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("part must not be null");
    assertThatThrownBy(() -> RequestKey.of((Object[]) null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("parts");
  }

  @Test
  void address_zoneOfAnAddressStartingWithAColon_isDropped() {
    assertThat(RequestKey.address("::1%eth0", 128)).isEqualTo(RequestKey.address("::1", 128));
    assertThat(RequestKey.address("::1%eth0", 128).value()).isEqualTo("ip:0:0:0:0:0:0:0:1/128");
    // A '%' with no address before it is no zone: the text is kept, escaped.
    assertThat(RequestKey.address("%:1", 64).value()).isEqualTo("ip:%25%3A1");
  }

  @Test
  void keys_textAndHashCode_areTheValue() {
    RequestKey key = RequestKey.custom("a|b");
    assertThat(key).hasToString("custom:a%7Cb");
    assertThat(key.hashCode()).isEqualTo("custom:a%7Cb".hashCode());
    assertThat(key).isNotEqualTo("custom:a%7Cb");
  }

  /** The inverse of the escape; fails on a '%' that starts no escape. */
  private static String unescape(String escaped) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < escaped.length(); i++) {
      char c = escaped.charAt(i);
      if (c != '%') {
        out.append(c);
        continue;
      }
      String code = escaped.substring(i, Math.min(i + 3, escaped.length()));
      out.append(
          switch (code) {
            case "%25" -> '%';
            case "%3A" -> ':';
            case "%7C" -> '|';
            case "%28" -> '(';
            case "%29" -> ')';
            default -> throw new AssertionError("'%' starting no escape in " + escaped);
          });
      i += 2;
    }
    return out.toString();
  }
}
