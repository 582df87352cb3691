package io.slidingwindow.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/** Keeps the keys a client can choose short, so that none makes a tracked key cost kilobytes. */
final class BoundedKeys {

  /** Longer keys are replaced by their digest. */
  static final int MAX_KEY_CHARS = 256;

  private BoundedKeys() {}

  /**
   * {@code key} itself if it has at most {@value #MAX_KEY_CHARS} characters, otherwise {@code
   * "sha256:"} and the URL-safe Base64 of its SHA-256 digest, which no {@link RequestKey} value can
   * spell.
   */
  static String of(String key) {
    if (key.length() <= MAX_KEY_CHARS) {
      return key;
    }
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(key.getBytes(StandardCharsets.UTF_8));
      return "sha256:" + Base64.getUrlEncoder().withoutPadding().encodeToString(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }
}
