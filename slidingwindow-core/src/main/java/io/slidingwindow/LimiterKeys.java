package io.slidingwindow;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * The one rule for keys that a client can make long: every way in (the web filters, the gateway,
 * the keyed limiters in process and on Redis, the rate limit service) stores {@link
 * #bounded(String)} of a key, never the key itself.
 *
 * <p>A key of at most {@value #MAX_CHARS} characters that does not start with {@value
 * #DIGEST_PREFIX} is kept as it is. Any other key is replaced by {@value #DIGEST_PREFIX} and the
 * URL-safe Base64 (no padding) of the SHA-256 digest of its UTF-16 code units (two bytes each, high
 * byte first, so that a string holding an unpaired surrogate digests as it is). The rule is
 * injective up to SHA-256 collisions: a kept key never starts with the prefix, and every replaced
 * key does, so a short key can never spell the digest of a long one, and keys that differ in a
 * namespace they carry (an address, a header, a principal) keep differing after the replacement. A
 * stored key takes at most {@value #MAX_CHARS} characters, at most {@code 3 * MAX_CHARS} bytes in
 * UTF-8.
 *
 * <p>Stateless and thread-safe.
 */
public final class LimiterKeys {

  /** The longest key kept as it is, in UTF-16 characters. */
  public static final int MAX_CHARS = 256;

  /** The start of every replaced key, which no kept key has. */
  public static final String DIGEST_PREFIX = "sha256:";

  private static final Base64.Encoder BASE64 = Base64.getUrlEncoder().withoutPadding();

  private LimiterKeys() {}

  /**
   * The key to store for {@code key}: {@code key} itself if it is short and does not start with
   * {@value #DIGEST_PREFIX}, its digest otherwise.
   *
   * @throws IllegalArgumentException if {@code key} is null
   */
  public static String bounded(String key) {
    if (key == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    if (key.length() <= MAX_CHARS && !key.startsWith(DIGEST_PREFIX)) {
      return key;
    }
    byte[] units = new byte[2 * key.length()];
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      units[2 * i] = (byte) (c >>> 8);
      units[2 * i + 1] = (byte) c;
    }
    return DIGEST_PREFIX + BASE64.encodeToString(sha256().digest(units));
  }

  /** Whether {@link #bounded(String)} keeps {@code key} as it is. */
  public static boolean isKeptAsIs(String key) {
    return key != null && key.length() <= MAX_CHARS && !key.startsWith(DIGEST_PREFIX);
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }
}
