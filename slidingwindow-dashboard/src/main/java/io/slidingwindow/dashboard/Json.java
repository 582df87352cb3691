package io.slidingwindow.dashboard;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Writes a tree of maps, lists, {@code long[]}, strings, numbers, booleans and nulls as JSON. Text
 * is escaped so that any string, whoever chose it, stays one JSON string: quotes, backslashes,
 * control characters, unpaired surrogates, {@code < > &} and the line and paragraph separators are
 * written as escapes.
 */
final class Json {

  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Json() {}

  static String write(Object tree) {
    StringBuilder out = new StringBuilder(4096);
    value(out, tree);
    return out.toString();
  }

  private static void value(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof String text) {
      string(out, text);
    } else if (value instanceof Boolean || value instanceof Integer || value instanceof Long) {
      out.append(value);
    } else if (value instanceof long[] numbers) {
      out.append('[');
      for (int i = 0; i < numbers.length; i++) {
        if (i > 0) {
          out.append(',');
        }
        out.append(numbers[i]);
      }
      out.append(']');
    } else if (value instanceof Map<?, ?> map) {
      out.append('{');
      Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator();
      while (entries.hasNext()) {
        Map.Entry<?, ?> entry = entries.next();
        string(out, String.valueOf(entry.getKey()));
        out.append(':');
        value(out, entry.getValue());
        if (entries.hasNext()) {
          out.append(',');
        }
      }
      out.append('}');
    } else if (value instanceof List<?> list) {
      out.append('[');
      for (int i = 0; i < list.size(); i++) {
        if (i > 0) {
          out.append(',');
        }
        value(out, list.get(i));
      }
      out.append(']');
    } else {
      throw new IllegalArgumentException(
          "value must be a map, list, long[], string, integer, long, boolean or null, was a "
              + value.getClass().getName());
    }
  }

  private static void string(StringBuilder out, String text) {
    out.append('"');
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        default -> {
          if (c < 0x20 || c == '<' || c == '>' || c == '&' || c == '\u2028' || c == '\u2029') {
            unicode(out, c);
          } else if (Character.isHighSurrogate(c)
              && i + 1 < text.length()
              && Character.isLowSurrogate(text.charAt(i + 1))) {
            out.append(c).append(text.charAt(++i));
          } else if (Character.isSurrogate(c)) {
            unicode(out, c);
          } else {
            out.append(c);
          }
        }
      }
    }
    out.append('"');
  }

  private static void unicode(StringBuilder out, char c) {
    out.append("\\u")
        .append(HEX[(c >> 12) & 0xf])
        .append(HEX[(c >> 8) & 0xf])
        .append(HEX[(c >> 4) & 0xf])
        .append(HEX[c & 0xf]);
  }
}
