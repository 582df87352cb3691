package io.slidingwindow.redis;

import io.slidingwindow.LimiterKeys;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * Builds the hash-tagged Redis keys of an id.
 *
 * <p>Every key of one id is {@code <prefix>:{<tag>}:<suffix>}. The id first goes through the one
 * long-key rule of the library, {@link LimiterKeys#bounded(String)}: an id of more than {@value
 * LimiterKeys#MAX_CHARS} characters (or one that starts with its digest prefix) is replaced by its
 * SHA-256 digest, so an id of any length is keyed, in at most {@value LimiterKeys#MAX_CHARS}
 * characters. The tag is then a marker letter and the URL-safe Base64 (no padding) of the stored
 * key's bytes: UTF-8 for well-formed strings ({@code u}), and for strings holding an unpaired
 * surrogate ({@code w}) the two bytes of each UTF-16 code unit, high byte first, written here
 * rather than by a charset encoder (which would replace every unpaired surrogate by U+FFFD, so that
 * ids differing only in which lone surrogate they hold would share a tag). Both encodings are
 * injective and the marker tells them apart, so distinct ids always give distinct tags (up to
 * SHA-256 collisions between long ids). Base64 has no braces, and the marker keeps the tag
 * non-empty even for the empty id, so Redis Cluster hashes exactly the tag: all keys of an id land
 * in one slot, whatever the id holds (braces, CR LF, NUL, any Unicode, any length). A tag takes at
 * most 1 + 4 * 256 characters. Stateless and thread-safe.
 */
final class Keys {

  /**
   * The key the health probe writes to (an expiry on a key that never exists). Its tag starts with
   * neither marker letter, so no id's keys are ever this key.
   */
  static final String PROBE_KEY = "sw:{health}:probe";

  private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();

  private Keys() {}

  /**
   * Returns {@code prefix + ":{" + tag + "}:"} for the stored key of {@code id}, {@link
   * LimiterKeys#bounded(String)}.
   *
   * @throws IllegalArgumentException if {@code id} is null
   */
  static String tagged(String prefix, String id) {
    return taggedStored(prefix, LimiterKeys.bounded(id));
  }

  /**
   * Returns {@code prefix + ":{" + tag + "}:"} for {@code stored}, a key already bounded by {@link
   * LimiterKeys#bounded(String)}.
   */
  static String taggedStored(String prefix, String stored) {
    boolean wellFormed = isWellFormed(stored);
    byte[] bytes = wellFormed ? stored.getBytes(StandardCharsets.UTF_8) : codeUnits(stored);
    return prefix + ":{" + (wellFormed ? 'u' : 'w') + BASE64.encodeToString(bytes) + "}:";
  }

  /**
   * Checks a key prefix: non-empty, without braces (they would change the hash tag), and
   * well-formed UTF-16 (Redis receives the prefix as UTF-8, where an unpaired surrogate would
   * become {@code '?'} and two prefixes would share keys).
   *
   * @throws IllegalArgumentException otherwise, saying which
   */
  static String checkPrefix(String prefix) {
    if (prefix == null
        || prefix.isEmpty()
        || prefix.indexOf('{') >= 0
        || prefix.indexOf('}') >= 0) {
      throw new IllegalArgumentException(
          "keyPrefix must be non-empty and hold no '{' or '}', was "
              + (prefix == null ? null : '"' + prefix + '"'));
    }
    int bad = unpairedSurrogate(prefix);
    if (bad >= 0) {
      throw new IllegalArgumentException(
          "keyPrefix must be well-formed UTF-16, but holds an unpaired surrogate at index " + bad);
    }
    return prefix;
  }

  /** Each UTF-16 code unit of {@code s} as two bytes, high byte first, surrogates kept as is. */
  private static byte[] codeUnits(String s) {
    byte[] bytes = new byte[2 * s.length()];
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      bytes[2 * i] = (byte) (c >>> 8);
      bytes[2 * i + 1] = (byte) c;
    }
    return bytes;
  }

  private static boolean isWellFormed(String s) {
    return unpairedSurrogate(s) < 0;
  }

  /** The index of the first unpaired surrogate of {@code s}, or -1 if it is well-formed. */
  static int unpairedSurrogate(String s) {
    for (int i = 0, n = s.length(); i < n; i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)) {
        if (i + 1 < n && Character.isLowSurrogate(s.charAt(i + 1))) {
          i++;
        } else {
          return i;
        }
      } else if (Character.isLowSurrogate(c)) {
        return i;
      }
    }
    return -1;
  }
}
