package io.slidingwindow.http;

import java.util.regex.Pattern;

/**
 * A block of IP addresses in CIDR notation ({@code 10.0.0.0/8}, {@code ::1/128}) or one address.
 * Addresses are parsed by hand as IPv4 dotted quads or RFC 4291 IPv6 text (with {@code ::} and a
 * trailing dotted quad); anything else is not an address. No text ever reaches a name resolver, so
 * parsing never touches DNS or the hosts file. IPv4 and IPv6 blocks never contain each other's
 * addresses, IPv4-mapped IPv6 addresses included. Immutable.
 */
final class IpRange {

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");

  private final byte[] network;
  private final int prefixBits;
  private final String text;

  private IpRange(byte[] network, int prefixBits, String text) {
    this.network = network;
    this.prefixBits = prefixBits;
    this.text = text;
  }

  /**
   * Parses {@code cidr}.
   *
   * @throws IllegalArgumentException naming the value if it is not an address or block
   */
  static IpRange parse(String cidr) {
    if (cidr == null) {
      throw new IllegalArgumentException("trusted proxy must not be null");
    }
    String value = cidr.trim();
    int slash = value.indexOf('/');
    String address = slash < 0 ? value : value.substring(0, slash);
    byte[] bytes = literal(address);
    if (bytes == null) {
      throw new IllegalArgumentException(
          "trusted proxy must be an IP address or CIDR block, was '" + cidr + "'");
    }
    int bits = bytes.length * 8;
    if (slash >= 0) {
      try {
        bits = Integer.parseInt(value.substring(slash + 1));
      } catch (NumberFormatException e) {
        bits = -1;
      }
      if (bits < 0 || bits > bytes.length * 8) {
        throw new IllegalArgumentException(
            "trusted proxy prefix length must be 0.." + bytes.length * 8 + ", was '" + cidr + "'");
      }
    }
    return new IpRange(bytes, bits, value);
  }

  /** Whether {@code address}, a literal, lies in this block; false for anything unparsable. */
  boolean contains(String address) {
    byte[] bytes = literal(address);
    if (bytes == null || bytes.length != network.length) {
      return false;
    }
    int full = prefixBits / 8;
    for (int i = 0; i < full; i++) {
      if (bytes[i] != network[i]) {
        return false;
      }
    }
    int rest = prefixBits % 8;
    if (rest == 0) {
      return true;
    }
    int mask = (0xFF << (8 - rest)) & 0xFF;
    return (bytes[full] & mask) == (network[full] & mask);
  }

  /**
   * The bytes of a literal IPv4 or IPv6 address (4 or 16), or null if {@code address} is not one.
   * An IPv4-mapped IPv6 address stays 16 bytes.
   */
  static byte[] literal(String address) {
    if (address == null || address.isEmpty() || address.length() > 45) {
      return null;
    }
    if (IPV4.matcher(address).matches()) {
      return ipv4(address);
    }
    return address.indexOf(':') < 0 ? null : ipv6(address);
  }

  private static byte[] ipv4(String address) {
    String[] octets = address.split("\\.", -1);
    byte[] bytes = new byte[4];
    for (int i = 0; i < 4; i++) {
      int octet = Integer.parseInt(octets[i]);
      if (octet > 255) {
        return null;
      }
      bytes[i] = (byte) octet;
    }
    return bytes;
  }

  /** Eight 16-bit groups; {@code ::} stands for one or more zero groups, once. */
  private static byte[] ipv6(String address) {
    int gap = address.indexOf("::");
    if (gap >= 0 && address.indexOf("::", gap + 1) >= 0) {
      return null;
    }
    int[] head = gap < 0 ? groups(address, true) : groups(address.substring(0, gap), false);
    int[] tail = gap < 0 ? new int[0] : groups(address.substring(gap + 2), true);
    if (head == null || tail == null) {
      return null;
    }
    int count = head.length + tail.length;
    if (gap < 0 ? count != 8 : count > 7) {
      return null;
    }
    byte[] bytes = new byte[16];
    for (int i = 0; i < head.length; i++) {
      bytes[2 * i] = (byte) (head[i] >> 8);
      bytes[2 * i + 1] = (byte) head[i];
    }
    for (int i = 0; i < tail.length; i++) {
      int at = 8 - tail.length + i;
      bytes[2 * at] = (byte) (tail[i] >> 8);
      bytes[2 * at + 1] = (byte) tail[i];
    }
    return bytes;
  }

  /**
   * The 16-bit groups of a colon-separated run (empty for ""), a trailing dotted quad counting as
   * two when {@code quadAllowed}; null if a group is empty or not 1 to 4 hex digits.
   */
  private static int[] groups(String run, boolean quadAllowed) {
    if (run.isEmpty()) {
      return new int[0];
    }
    String[] parts = run.split(":", -1);
    String last = parts[parts.length - 1];
    boolean quad = last.indexOf('.') >= 0;
    if (quad && (!quadAllowed || !IPV4.matcher(last).matches())) {
      return null;
    }
    byte[] v4 = quad ? ipv4(last) : null;
    if (quad && v4 == null) {
      return null;
    }
    int hexParts = quad ? parts.length - 1 : parts.length;
    int[] groups = new int[hexParts + (quad ? 2 : 0)];
    for (int i = 0; i < hexParts; i++) {
      String part = parts[i];
      if (part.isEmpty() || part.length() > 4) {
        return null;
      }
      int value = 0;
      for (int c = 0; c < part.length(); c++) {
        int digit = RequestPaths.hex(part.charAt(c));
        if (digit < 0) {
          return null;
        }
        value = value << 4 | digit;
      }
      groups[i] = value;
    }
    if (quad) {
      groups[hexParts] = (v4[0] & 0xFF) << 8 | (v4[1] & 0xFF);
      groups[hexParts + 1] = (v4[2] & 0xFF) << 8 | (v4[3] & 0xFF);
    }
    return groups;
  }

  @Override
  public String toString() {
    return text;
  }
}
