package io.slidingwindow.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * Finds the address of the client that sent a request, trusting {@code X-Forwarded-For} only as far
 * as it was written by proxies the operator named.
 *
 * <p>The client address is the request's {@code remoteAddr} (the peer of the TCP connection),
 * unless that peer is a trusted proxy. Then the {@code X-Forwarded-For} hops (every such header, in
 * order, comma-separated) are read from right to left, skipping trusted proxies, and the first
 * untrusted hop is the client. A client cannot forge its address: whatever it writes into the
 * header is to the left of the hop that the trusted proxy appended. If every hop is trusted, the
 * left-most hop is the client; if there is no header, {@code remoteAddr} is.
 *
 * <p>Hops may carry an IPv6 address in brackets and a port ({@code [::1]:8080}, {@code
 * 10.0.0.1:443}); both are dropped. Host names and garbage are never trusted and never looked up.
 *
 * <p>Rate-limit keys ({@link #key(HttpServletRequest)}) take an IPv6 client by its prefix ({@link
 * #withIpv6PrefixLength(int)}, /64 by default), since one host may hold a whole /64, and an
 * IPv4-mapped IPv6 address as the IPv4 address it maps. Trust is decided on the address as written:
 * an IPv4 block does not hold the mapped form of its addresses.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class ClientIpResolver {

  /** The name of the header that proxies append the client to. */
  public static final String X_FORWARDED_FOR = "X-Forwarded-For";

  /** The IPv6 prefix length a client is keyed by unless set otherwise. */
  public static final int DEFAULT_IPV6_PREFIX_LENGTH = 64;

  private static final ClientIpResolver DIRECT =
      new ClientIpResolver(List.of(), DEFAULT_IPV6_PREFIX_LENGTH);

  private final List<IpRange> trustedProxies;
  private final int ipv6PrefixLength;

  private ClientIpResolver(List<IpRange> trustedProxies, int ipv6PrefixLength) {
    this.trustedProxies = trustedProxies;
    this.ipv6PrefixLength = ipv6PrefixLength;
  }

  /** A resolver that trusts no proxy: the client is always {@code remoteAddr}. */
  public static ClientIpResolver direct() {
    return DIRECT;
  }

  /**
   * A resolver that trusts the proxies in {@code cidrs}, each an address ({@code 10.0.0.7}) or a
   * CIDR block ({@code 10.0.0.0/8}, {@code fd00::/8}).
   *
   * @throws IllegalArgumentException if {@code cidrs} is null or holds a value that is not an IP
   *     address or CIDR block
   */
  public static ClientIpResolver trusting(List<String> cidrs) {
    if (cidrs == null) {
      throw new IllegalArgumentException("trusted proxies must not be null");
    }
    List<IpRange> ranges = new ArrayList<>();
    for (String cidr : cidrs) {
      ranges.add(IpRange.parse(cidr));
    }
    return new ClientIpResolver(List.copyOf(ranges), DEFAULT_IPV6_PREFIX_LENGTH);
  }

  /**
   * A resolver trusting the same proxies that keys IPv6 clients by their first {@code bits} bits
   * ({@value #DEFAULT_IPV6_PREFIX_LENGTH} by default). A host is commonly given a whole /64 and may
   * pick any address in it, so keying by address would give it 2^64 quotas; 128 keys each address.
   *
   * @throws IllegalArgumentException if {@code bits} is not 1..128
   */
  public ClientIpResolver withIpv6PrefixLength(int bits) {
    return new ClientIpResolver(trustedProxies, RequestKey.checkPrefixLength(bits));
  }

  /** The IPv6 prefix length that clients are keyed by. */
  public int ipv6PrefixLength() {
    return ipv6PrefixLength;
  }

  /**
   * The key of the client of {@code request}: {@link RequestKey#address(String, int)} of {@link
   * #resolve(HttpServletRequest)}, so an IPv4 client by its address, an IPv4-mapped IPv6 client
   * ({@code ::ffff:192.0.2.1}) as that IPv4 address, and an IPv6 client by its prefix.
   */
  public RequestKey key(HttpServletRequest request) {
    return RequestKey.address(resolve(request), ipv6PrefixLength);
  }

  /** The client address of {@code request}. */
  public String resolve(HttpServletRequest request) {
    Enumeration<String> headers = request.getHeaders(X_FORWARDED_FOR);
    return resolve(
        request.getRemoteAddr(), headers == null ? List.of() : Collections.list(headers));
  }

  /** The client address for a connection from {@code remoteAddr} with these header values. */
  String resolve(String remoteAddr, List<String> forwardedFor) {
    String peer = normalize(remoteAddr);
    if (!isTrusted(peer) || forwardedFor.isEmpty()) {
      return peer;
    }
    List<String> hops = new ArrayList<>();
    for (String header : forwardedFor) {
      for (String hop : header.split(",")) {
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
  boolean isTrusted(String address) {
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
    return "ClientIpResolver trusting " + trustedProxies + ", IPv6 clients by /" + ipv6PrefixLength;
  }
}
