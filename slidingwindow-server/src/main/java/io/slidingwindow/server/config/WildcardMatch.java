package io.slidingwindow.server.config;

/** Matching of descriptor values against patterns in which each {@code *} stands for any text. */
final class WildcardMatch {

  private WildcardMatch() {}

  /**
   * Whether {@code value} matches the pattern split at its stars into {@code parts}: it starts with
   * the first part, ends with the last, and holds the middle parts in order between them, without
   * overlap.
   */
  static boolean matches(String[] parts, String value) {
    if (parts.length == 1) {
      return parts[0].equals(value);
    }
    String first = parts[0];
    String last = parts[parts.length - 1];
    if (value.length() < first.length() + last.length()
        || !value.startsWith(first)
        || !value.endsWith(last)) {
      return false;
    }
    int from = first.length();
    int end = value.length() - last.length();
    for (int i = 1; i < parts.length - 1; i++) {
      int at = value.indexOf(parts[i], from);
      if (at < 0 || at + parts[i].length() > end) {
        return false;
      }
      from = at + parts[i].length();
    }
    return true;
  }
}
