package io.slidingwindow.servlet;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/**
 * A block of IP addresses in CIDR notation ({@code 10.0.0.0/8}, {@code ::1/128}) or one address.
 * Only literal addresses are parsed, never host names, so parsing never touches DNS. IPv4 and IPv6
 * blocks never contain each other's addresses, IPv4-mapped IPv6 addresses included. Immutable.
 */
final class IpRange {

  private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
  private static final Pattern IPV6 = Pattern.compile("[0-9a-fA-F:.]*:[0-9a-fA-F:.]*");

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
   * An IPv4-mapped IPv6 address stays 16 bytes: the JDK would turn it into 4.
   */
  static byte[] literal(String address) {
    if (address == null || address.isEmpty() || address.length() > 45) {
      return null;
    }
    if (IPV4.matcher(address).matches()) {
      String[] octets = address.split("\\.");
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
    if (!IPV6.matcher(address).matches()) {
      return null; // not a literal: never hand it to InetAddress, which would look it up
    }
    try {
      // With a ':' in it, InetAddress parses an IPv6 literal and never looks the text up.
      byte[] bytes = InetAddress.getByName(address).getAddress();
      if (bytes.length == 4) {
        byte[] mapped = new byte[16];
        mapped[10] = (byte) 0xFF;
        mapped[11] = (byte) 0xFF;
        System.arraycopy(bytes, 0, mapped, 12, 4);
        return mapped;
      }
      return bytes;
    } catch (UnknownHostException e) {
      return null;
    }
  }

  @Override
  public String toString() {
    return text;
  }
}
