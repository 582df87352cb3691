package io.slidingwindow.http;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds the address of the client that sent a request from the connection's peer address and the
 * request's {@code X-Forwarded-For} values, trusting that header only as far as it was written by
 * proxies the operator named. It takes no request type: each server adapter passes what its own API
 * reads, so that every adapter finds the same client.
 *
 * <p>The client address is the peer's, unless the peer is a trusted proxy. Then the {@code
 * X-Forwarded-For} hops (every such header, in order, comma-separated) are read from right to left,
 * skipping trusted proxies, and the first untrusted hop is the client. A client cannot forge its
 * address: whatever it writes into the header is to the left of the hop that the trusted proxy
 * appended. If every hop is trusted, the left-most hop is the client; if there is no header, the
 * peer is.
 *
 * <p>Hops may carry an IPv6 address in brackets and a port ({@code [::1]:8080}, {@code
 * 10.0.0.1:443}); both are dropped. Host names and garbage are never trusted and never looked up.
 *
 * <p>Rate-limit keys ({@link #key(String, List)}) take an IPv6 client by its prefix ({@link
 * #withIpv6PrefixLength(int)}, /64 by default), since one host may hold a whole /64, and an
 * IPv4-mapped IPv6 address as the IPv4 address it maps. Trust is decided on the address as written:
 * an IPv4 block does not hold the mapped form of its addresses.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class ClientAddresses {

  /** The name of the header that proxies append the client to. */
  public static final String X_FORWARDED_FOR = "X-Forwarded-For";

  /** The IPv6 prefix length a client is keyed by unless set otherwise. */
  public static final int DEFAULT_IPV6_PREFIX_LENGTH = 64;

  private static final ClientAddresses DIRECT =
      new ClientAddresses(List.of(), DEFAULT_IPV6_PREFIX_LENGTH);

  private final List<IpRange> trustedProxies;
  private final int ipv6PrefixLength;

  private ClientAddresses(List<IpRange> trustedProxies, int ipv6PrefixLength) {
    this.trustedProxies = trustedProxies;
    this.ipv6PrefixLength = ipv6PrefixLength;
  }

  /** Trusts no proxy: the client is always the peer. */
  public static ClientAddresses direct() {
    return DIRECT;
  }

  /**
   * Trusts the proxies in {@code cidrs}, each an address ({@code 10.0.0.7}) or a CIDR block ({@code
   * 10.0.0.0/8}, {@code fd00::/8}).
   *
   * @throws IllegalArgumentException if {@code cidrs} is null or holds a value that is not an IP
   *     address or CIDR block
   */
  public static ClientAddresses trusting(List<String> cidrs) {
    if (cidrs == null) {
      throw new IllegalArgumentException("trusted proxies must not be null");
    }
    List<IpRange> ranges = new ArrayList<>();
    for (String cidr : cidrs) {
      ranges.add(IpRange.parse(cidr));
    }
    return new ClientAddresses(List.copyOf(ranges), DEFAULT_IPV6_PREFIX_LENGTH);
  }

  /**
   * The same proxies, keying IPv6 clients by their first {@code bits} bits ({@value
   * #DEFAULT_IPV6_PREFIX_LENGTH} by default). A host is commonly given a whole /64 and may pick any
   * address in it, so keying by address would give it 2^64 quotas; 128 keys each address.
   *
   * @throws IllegalArgumentException if {@code bits} is not 1..128
   */
  public ClientAddresses withIpv6PrefixLength(int bits) {
    return new ClientAddresses(trustedProxies, RequestKey.checkPrefixLength(bits));
  }

  /** The IPv6 prefix length that clients are keyed by. */
  public int ipv6PrefixLength() {
    return ipv6PrefixLength;
  }

  /**
   * The key of the client of a connection from {@code remoteAddr} with these {@code
   * X-Forwarded-For} values: {@link RequestKey#address(String, int)} of {@link #resolve}.
   *
   * @param remoteAddr the peer's address as text, as the server reports it
   * @param forwardedFor every {@code X-Forwarded-For} header value, in order; empty if none
   */
  public RequestKey key(String remoteAddr, List<String> forwardedFor) {
    return RequestKey.address(resolve(remoteAddr, forwardedFor), ipv6PrefixLength);
  }

  /**
   * The client address of a connection from {@code remoteAddr} with these {@code X-Forwarded-For}
   * values.
   *
   * @param remoteAddr the peer's address as text; null reads as empty
   * @param forwardedFor every {@code X-Forwarded-For} header value, in order; empty if none
   */
  public String resolve(String remoteAddr, List<String> forwardedFor) {
    String peer = normalize(remoteAddr);
    if (forwardedFor == null || forwardedFor.isEmpty() || !isTrusted(peer)) {
      return peer;
    }
    List<String> hops = new ArrayList<>();
    for (String header : forwardedFor) {
      for (String hop : header.split(",", -1)) {
        String value = normalize(hop);
        if (!value.isEmpty()) {
          hops.add(value);
        }
      }
    }
    for (int i = hops.size() - 1; i >= 0; i--) {
      if (!isTrusted(hops.get(i))) {
        return hops.get(i);
      }
    }
    return hops.isEmpty() ? peer : hops.get(0);
  }

  /** Whether {@code address} is one of the trusted proxies. */
  public boolean isTrusted(String address) {
    for (IpRange range : trustedProxies) {
      if (range.contains(address)) {
        return true;
      }
    }
    return false;
  }

  /** Trims, and drops brackets and a port; an address stays as written otherwise. */
  static String normalize(String hop) {
    if (hop == null) {
      return "";
    }
    String value = hop.trim();
    if (value.startsWith("[")) {
      int close = value.indexOf(']');
      return close > 0 ? value.substring(1, close) : value;
    }
    int colon = value.indexOf(':');
    if (colon > 0 && colon == value.lastIndexOf(':') && value.indexOf('.') > 0) {
      return value.substring(0, colon); // IPv4 with a port
    }
    return value;
  }

  @Override
  public String toString() {
    return "trusting " + trustedProxies + ", IPv6 clients by /" + ipv6PrefixLength;
  }
}
