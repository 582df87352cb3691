package io.slidingwindow.dashboard;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How a refused key appears on the dashboard: the name of its source, when it has one, and a short
 * hash of the rest, never the key itself (an issued API key, a user's name, an address). {@code
 * ip:203.0.113.7} shows as {@code ip:#} and 12 hex digits, {@code header:x-api-key:secret} as
 * {@code header:x-api-key:#...}, a service descriptor {@code client=alice} as {@code client=#...},
 * and a tuple as {@code #...} alone.
 *
 * <p>The hash is the first 48 bits of SHA-256 over a secret drawn at random once per process and
 * the key's UTF-16 code units (two bytes each, high byte first, so that a key holding a lone
 * surrogate, as a service value read from bytes that are not UTF-8 does, shows as itself): the same
 * key shows the same in every feed of one process, so an operator can follow it, while without the
 * secret the key cannot be found by hashing guesses (an IPv4 address has only 2^32 of them). Two
 * keys show alike with odds of about one in 2^48 per pair. Stateless apart from the secret;
 * thread-safe.
 */
final class ShownKeys {

  /** A source name such as {@code ip:}, {@code header:x-api-key:} or {@code client=}. */
  private static final Pattern SOURCE =
      Pattern.compile("(header:[A-Za-z0-9!#$&'*+.^_`|~-]{1,64}:|[a-z][a-z0-9_.-]{0,31}[:=])");

  private static final byte[] SECRET = secret();

  private ShownKeys() {}

  /** {@code key} as the dashboard shows it. */
  static String of(String key) {
    Matcher source = SOURCE.matcher(key);
    String name = source.lookingAt() ? source.group(1) : "";
    MessageDigest sha256 = sha256();
    sha256.update(SECRET);
    // Its UTF-16 code units, not its UTF-8: a key read from bytes that are not UTF-8 holds a lone
    // surrogate, which UTF-8 would turn into '?', showing it as another key does.
    byte[] units = new byte[2 * key.length()];
    for (int i = 0; i < key.length(); i++) {
      char c = key.charAt(i);
      units[2 * i] = (byte) (c >>> 8);
      units[2 * i + 1] = (byte) c;
    }
    byte[] digest = sha256.digest(units);
    return name + '#' + HexFormat.of().formatHex(digest, 0, 6);
  }

  private static byte[] secret() {
    byte[] secret = new byte[32];
    new SecureRandom().nextBytes(secret);
    return secret;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every Java platform", e);
    }
  }
}
