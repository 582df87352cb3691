package io.slidingwindow.http;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;

/**
 * A rate-limit key that remembers where it came from: a client address, a header (by name), an
 * authenticated principal, a value the application chose, everyone at once, or a tuple of these. A
 * value that is not a key is made one by its content ({@link #ofValue(Object)}).
 *
 * <p>Guarantee: {@link #value()}, the text the limiter stores, is injective over sources and
 * contents. Two keys have equal values only if they have the same source (and header name) and the
 * same content, so no value a client controls (a header, a path segment, a user name) can name the
 * bucket of another source: {@code X-Api-Key: 127.0.0.1} is {@code header:x-api-key:127.0.0.1},
 * never {@code ip:127.0.0.1}. The grammar is
 *
 * <pre>
 * key     = "ip:" address | "header:" text ":" text | "principal:" text | "custom:" text
 *         | "global" | "(" [ part *( "|" part ) ] ")"
 * part    = key | "null"
 * text    = any characters, with % : | ( ) written as %25 %3A %7C %28 %29
 * address = a canonical IPv4 address, or canonical IPv6 text followed by "/" prefix length,
 *           or, for a client address that is no IP literal, its text escaped as above
 * </pre>
 *
 * <p>so that each value parses back in exactly one way. No value starts with {@value
 * io.slidingwindow.LimiterKeys#DIGEST_PREFIX}, so {@link io.slidingwindow.LimiterKeys#bounded},
 * which every way in applies before a key is stored, keeps every short value as it is and is
 * injective over all values. Header names are compared case-insensitively, as HTTP does.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class RequestKey {

  private static final RequestKey GLOBAL = new RequestKey("global");

  private final String value;

  private RequestKey(String value) {
    this.value = value;
  }

  /**
   * {@code address} without an IPv6 zone ({@code fe80::1%eth0} is {@code fe80::1}): a peer on the
   * same link could otherwise rotate addresses inside its prefix and be keyed by each.
   */
  static String withoutZone(String address) {
    int zone = address.indexOf('%');
    return zone > 0 && address.indexOf(':') >= 0 ? address.substring(0, zone) : address;
  }

  /**
   * The key of a client address: an IPv4 address as itself, an IPv4-mapped IPv6 address as its IPv4
   * address, any other IPv6 address as its first {@code ipv6PrefixLength} bits (one host usually
   * holds a whole /64 and can pick any address inside it). Text that is no IP literal (a forwarded
   * host name) is kept, escaped, so that it can never spell a literal's key.
   *
   * @throws IllegalArgumentException if {@code address} is null or {@code ipv6PrefixLength} is not
   *     1..128
   */
  public static RequestKey address(String address, int ipv6PrefixLength) {
    if (address == null) {
      throw new IllegalArgumentException("address must not be null");
    }
    checkPrefixLength(ipv6PrefixLength);
    byte[] bytes = IpRange.literal(withoutZone(address));
    if (bytes == null) {
      return new RequestKey("ip:" + escape(address));
    }
    if (bytes.length == 16 && isIpv4Mapped(bytes)) {
      bytes = new byte[] {bytes[12], bytes[13], bytes[14], bytes[15]};
    }
    if (bytes.length == 4) {
      return new RequestKey(
          "ip:"
              + (bytes[0] & 0xFF)
              + '.'
              + (bytes[1] & 0xFF)
              + '.'
              + (bytes[2] & 0xFF)
              + '.'
              + (bytes[3] & 0xFF));
    }
    StringBuilder b = new StringBuilder("ip:");
    for (int group = 0; group < 8; group++) {
      int bits = Math.max(0, Math.min(16, ipv6PrefixLength - 16 * group));
      int mask = bits == 0 ? 0 : (0xFFFF << (16 - bits)) & 0xFFFF;
      int word = ((bytes[2 * group] & 0xFF) << 8 | (bytes[2 * group + 1] & 0xFF)) & mask;
      b.append(group == 0 ? "" : ":").append(Integer.toHexString(word));
    }
    return new RequestKey(b.append('/').append(ipv6PrefixLength).toString());
  }

  /**
   * The key of the value of header {@code name}.
   *
   * @throws IllegalArgumentException if {@code name} is null or blank, or {@code value} is null
   */
  public static RequestKey header(String name, String value) {
    if (name == null || name.isBlank()) {
      throw new IllegalArgumentException("header name must not be blank, was '" + name + "'");
    }
    requireNonNull(value, "value");
    return new RequestKey(
        "header:" + escape(name.trim().toLowerCase(Locale.ROOT)) + ':' + escape(value));
  }

  /**
   * The key of an authenticated principal's name.
   *
   * @throws IllegalArgumentException if {@code name} is null
   */
  public static RequestKey principal(String name) {
    requireNonNull(name, "name");
    return new RequestKey("principal:" + escape(name));
  }

  /**
   * A key the application chose (a tenant, a checked API key, what a key expression computed). It
   * lives in a namespace of its own: whatever its text, it never equals an address, header or
   * principal key.
   *
   * @throws IllegalArgumentException if {@code value} is null
   */
  public static RequestKey custom(String value) {
    requireNonNull(value, "value");
    return new RequestKey("custom:" + escape(value));
  }

  /** The one key shared by every request. */
  public static RequestKey global() {
    return GLOBAL;
  }

  /**
   * The key of {@code value} by its content, never by the identity of the object that holds it: the
   * one rule by which every way in turns a value that is not a typed key into one (a key
   * expression's result, a part of {@link #of(Object...)}, a gRPC {@code Context} value).
   *
   * <p>A {@code RequestKey} is itself. An array (of primitives or objects, nested), a {@link
   * java.util.Collection} (in iteration order), an {@link java.util.Optional}, a {@link
   * java.util.Map} (its entries as (key|value) pairs, in iteration order) and a record whose {@code
   * toString} is the generated one (which prints an array component by identity) are the tuple of
   * their elements or components, each by this rule, a null one as {@code null}: {@code new
   * String[] {"a", "b"}} is {@code (custom:a|custom:b)}, equal for every array of equal elements.
   * Any other value whose class has a {@code toString} other than {@code Object}'s (text, numbers,
   * booleans, characters, enums, a record or class that prints its content) is {@link
   * #custom(String)} of that text.
   *
   * @throws io.slidingwindow.KeyRejectedException naming the class, if {@code value} or a value
   *     inside it has {@code Object}'s {@code toString} (its text names the instance, so every call
   *     would have a key of its own) or a {@code toString} that gives null, a record's components
   *     cannot be read, or the values nest over 32 deep or number over 2<sup>20</sup>
   * @throws IllegalArgumentException if {@code value} is null
   */
  public static RequestKey ofValue(Object value) {
    requireNonNull(value, "value");
    return value instanceof RequestKey key ? key : new RequestKey(ValueKeys.of(value));
  }

  /**
   * The tuple of {@code parts}: equal only to a tuple of equal parts in the same order. A part that
   * is not a {@code RequestKey} is taken as {@link #ofValue(Object)} of it.
   *
   * <p>A lone collection or array is refused: Java passes an {@code Object[]} (or {@code String[]})
   * as the parts themselves, but a {@code List} or an {@code int[]} as one part, so {@code
   * of(list)} would be a tuple holding a tuple, not the tuple of the list's values. Pass the values
   * as the parts ({@code of(a, b)}), or key the collection by its content with {@link
   * #ofValue(Object)}, which gives that same key. With other parts beside it, a collection or array
   * is one part, as any value.
   *
   * @throws IllegalArgumentException if {@code parts} is null or empty, holds a null, or is one
   *     {@link Collection} or array
   * @throws io.slidingwindow.KeyRejectedException if a part cannot be a key ({@link
   *     #ofValue(Object)})
   */
  public static RequestKey of(Object... parts) {
    if (parts == null || parts.length == 0) {
      throw new IllegalArgumentException("parts must hold at least one part, was empty");
    }
    Object only = parts.length == 1 ? parts[0] : null;
    if (only instanceof Collection || only != null && only.getClass().isArray()) {
      throw new IllegalArgumentException(
          "parts must not be a lone collection or array, was a "
              + only.getClass().getTypeName()
              + ": pass its values as the parts, of(a, b), or key it by content with ofValue");
    }
    List<String> values = new ArrayList<>(parts.length);
    for (Object part : parts) {
      requireNonNull(part, "part");
      values.add(ofValue(part).value);
    }
    return new RequestKey("(" + String.join("|", values) + ")");
  }

  /** The text the limiter keys on, unique to this key's source and content (see the grammar). */
  public String value() {
    return value;
  }

  /** The same as {@link #value()}, so that string concatenation in an expression stays tagged. */
  @Override
  public String toString() {
    return value;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof RequestKey key && key.value.equals(value);
  }

  @Override
  public int hashCode() {
    return value.hashCode();
  }

  /**
   * Checks an IPv6 prefix length.
   *
   * @throws IllegalArgumentException if {@code bits} is not 1..128
   */
  static int checkPrefixLength(int bits) {
    if (bits < 1 || bits > 128) {
      throw new IllegalArgumentException("ipv6PrefixLength must be 1..128, was " + bits);
    }
    return bits;
  }

  private static boolean isIpv4Mapped(byte[] bytes) {
    for (int i = 0; i < 10; i++) {
      if (bytes[i] != 0) {
        return false;
      }
    }
    return bytes[10] == (byte) 0xFF && bytes[11] == (byte) 0xFF;
  }

  /** Writes {@code % : | ( )} as {@code %25 %3A %7C %28 %29}; every other character as itself. */
  static String escape(String text) {
    StringBuilder b = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      String escaped =
          switch (c) {
            case '%' -> "%25";
            case ':' -> "%3A";
            case '|' -> "%7C";
            case '(' -> "%28";
            case ')' -> "%29";
            default -> null;
          };
      if (escaped != null && b == null) {
        b = new StringBuilder(text.length() + 8).append(text, 0, i);
      }
      if (b != null) {
        if (escaped != null) {
          b.append(escaped);
        } else {
          b.append(c);
        }
      }
    }
    return b == null ? text : b.toString();
  }

  private static void requireNonNull(Object value, String name) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
  }
}
