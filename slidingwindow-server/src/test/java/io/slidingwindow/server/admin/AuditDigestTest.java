package io.slidingwindow.server.admin;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.LimiterKeys;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The digests the audit lines write for values: of the bytes each value stands for. */
class AuditDigestTest {

  @Test
  void valueNotUtf8_digestOfItsOwnBytes_notOfTheTextALossyReadingMakes() throws Exception {
    String value =
        ValueBytes.parse("k\\xffey"); // the bytes 6b ff 65 79, held as \uD800 "k\u00ffey"
    assertThat(ValueBytes.notUtf8(value)).isTrue();
    String roundTrip = new String(value.getBytes(UTF_8), UTF_8); // "?k\u00ffey"
    String replaced = new String(new byte[] {0x6b, (byte) 0xff, 0x65, 0x79}, UTF_8); // "k\uFFFDey"

    assertThat(OverrideRoutes.digest(value))
        .isNotEqualTo(OverrideRoutes.digest(roundTrip))
        .isNotEqualTo(OverrideRoutes.digest(replaced))
        .isEqualTo(digestOf(new byte[] {0x6b, (byte) 0xff, 0x65, 0x79}));
  }

  @Test
  void text_keepsTheDigestOfItsUtf8_asTheStarterWrites() throws Exception {
    assertThat(OverrideRoutes.digest("demo-key-2")).isEqualTo("sha256:-ybeW9jSR5-N_ywo");
    for (String text : new String[] {"café", "\uD800\uDC00x", "", "sha256:abc", "v".repeat(300)}) {
      assertThat(OverrideRoutes.digest(text))
          .as(text)
          .isEqualTo(digestOf(LimiterKeys.bounded(text).getBytes(UTF_8)));
    }
  }

  @Test
  void textStartingWithACharacterFromU10000_isText_notBytes() {
    String text = "\uD800\uDC00x"; // U+10000 then x: it starts with the mark of bytes not UTF-8
    assertThat(ValueBytes.notUtf8(text)).isFalse();
    assertThat(ValueBytes.notUtf8(ValueBytes.parse("\\xf0\\x90\\x80\\x80x"))).isFalse();
    Map<String, Object> view = new LinkedHashMap<>();
    ValueBytes.show(view, text);
    assertThat(view).containsExactly(Map.entry("value", text));
  }

  private static String digestOf(byte[] bytes) throws Exception {
    byte[] hash = MessageDigest.getInstance("SHA-256").digest(bytes);
    return "sha256:"
        + Base64.getUrlEncoder().withoutPadding().encodeToString(hash).substring(0, 16);
  }
}
