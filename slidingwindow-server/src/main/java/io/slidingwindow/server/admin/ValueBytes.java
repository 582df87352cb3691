package io.slidingwindow.server.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Descriptor values that are not UTF-8, as the override paths show and take them. The gRPC port
 * reads such a value as {@value #NOT_UTF8} followed by one character per byte (0 to 255), so that
 * it is counted by its bytes; JSON text cannot carry that (the lone surrogate is refused). So the
 * override listing shows its bytes escaped in {@code "value_bytes"}, printable ASCII as it is, a
 * backslash as {@code \\} and every other byte as {@code \xHH} ({@code k\xffey}), and an override
 * or quota call names it by the same text in {@code "value_bytes"} in place of {@code "value"}.
 * Bytes that are UTF-8 read back as that text, as the gRPC port reads them. Stateless.
 */
final class ValueBytes {

  /** What a value read from bytes that are not UTF-8 starts with: a lone high surrogate. */
  static final String NOT_UTF8 = "\uD800";

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private ValueBytes() {}

  /**
   * The value of an entry of an override body: its {@code value}, or the value its {@code
   * value_bytes} name.
   *
   * @throws BadRequest naming the field at fault
   */
  static String entryValue(JsonNode entry, String at) {
    if (!entry.has("value_bytes")) {
      return OverrideRoutes.text(entry, "value", at + ".value");
    }
    if (entry.has("value")) {
      throw BadRequest.invalid(at + " has both value and value_bytes; name the value once");
    }
    String escaped = OverrideRoutes.text(entry, "value_bytes", at + ".value_bytes");
    try {
      return parse(escaped);
    } catch (IllegalArgumentException e) {
      throw BadRequest.invalid(at + ".value_bytes: " + e.getMessage());
    }
  }

  /** Puts {@code value} in {@code view}: as {@code value}, or escaped as {@code value_bytes}. */
  static void show(Map<String, Object> view, String value) {
    if (notUtf8(value)) {
      view.put("value_bytes", escaped(value));
    } else {
      view.put("value", value);
    }
  }

  /**
   * Whether {@code value} was read from bytes that are not UTF-8: it starts with {@value #NOT_UTF8}
   * and no low surrogate follows (text starting with a character from U+10000 to U+103FF starts
   * with that same high surrogate, then a low one; a byte never reads as one).
   */
  static boolean notUtf8(String value) {
    return value.startsWith(NOT_UTF8)
        && !(value.length() > NOT_UTF8.length()
            && Character.isLowSurrogate(value.charAt(NOT_UTF8.length())));
  }

  /**
   * The bytes the audit lines digest for {@code value}: those it was read from if it is {@link
   * #notUtf8} (so that it never shares a digest with some text), else the UTF-8 of the key it is
   * counted by ({@link LimiterKeys#bounded}: the value itself unless long or starting with {@code
   * sha256:}), as the Spring Boot starter's quota lines digest keys.
   */
  static byte[] digested(String value) {
    return notUtf8(value)
        ? value.substring(NOT_UTF8.length()).getBytes(StandardCharsets.ISO_8859_1)
        : LimiterKeys.bounded(value).getBytes(StandardCharsets.UTF_8);
  }

  /** The escaped bytes of {@code value}, one that is {@link #notUtf8}. */
  static String escaped(String value) {
    StringBuilder text = new StringBuilder(value.length() + 16);
    for (int i = NOT_UTF8.length(); i < value.length(); i++) {
      char b = value.charAt(i);
      if (b == '\\') {
        text.append("\\\\");
      } else if (b >= 0x20 && b < 0x7f) {
        text.append(b);
      } else {
        text.append("\\x").append(HEX[(b >> 4) & 0xf]).append(HEX[b & 0xf]);
      }
    }
    return text.toString();
  }

  /**
   * The value of the escaped bytes {@code text}: their UTF-8 text, or {@value #NOT_UTF8} and one
   * character a byte when they are not UTF-8.
   *
   * @throws IllegalArgumentException naming the first character at fault
   */
  static String parse(String text) {
    byte[] bytes = new byte[text.length()];
    int n = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\' && i + 1 < text.length() && text.charAt(i + 1) == '\\') {
        bytes[n++] = '\\';
        i++;
      } else if (c == '\\' && i + 3 < text.length() && text.charAt(i + 1) == 'x') {
        int high = Character.digit(text.charAt(i + 2), 16);
        int low = Character.digit(text.charAt(i + 3), 16);
        if (high < 0 || low < 0) {
          throw new IllegalArgumentException("a \\x at index " + i + " wants two hex digits");
        }
        bytes[n++] = (byte) (high << 4 | low);
        i += 3;
      } else if (c >= 0x20 && c < 0x7f && c != '\\') {
        bytes[n++] = (byte) c;
      } else {
        throw new IllegalArgumentException(
            "index "
                + i
                + " is neither printable ASCII, \\\\ nor \\xHH (a byte of two hex digits)");
      }
    }
    try {
      return StandardCharsets.UTF_8
          .newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes, 0, n))
          .toString();
    } catch (CharacterCodingException e) {
      return NOT_UTF8 + new String(bytes, 0, n, StandardCharsets.ISO_8859_1);
    }
  }
}
