package io.slidingwindow.servlet;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import jakarta.servlet.http.HttpServletRequest;
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
 * <p>The servlet face of {@link ClientAddresses}, which holds the trust and keying rules so that
 * other server adapters find the same client; {@link #addresses()} returns it.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class ClientIpResolver {

  /** The name of the header that proxies append the client to. */
  public static final String X_FORWARDED_FOR = ClientAddresses.X_FORWARDED_FOR;

  /** The IPv6 prefix length a client is keyed by unless set otherwise. */
  public static final int DEFAULT_IPV6_PREFIX_LENGTH = ClientAddresses.DEFAULT_IPV6_PREFIX_LENGTH;

  private static final ClientIpResolver DIRECT = new ClientIpResolver(ClientAddresses.direct());

  private final ClientAddresses addresses;

  private ClientIpResolver(ClientAddresses addresses) {
    this.addresses = addresses;
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
    return new ClientIpResolver(ClientAddresses.trusting(cidrs));
  }

  /**
   * A resolver that finds clients as {@code addresses} does.
   *
   * @throws IllegalArgumentException if {@code addresses} is null
   */
  public static ClientIpResolver of(ClientAddresses addresses) {
    if (addresses == null) {
      throw new IllegalArgumentException("addresses must not be null");
    }
    return new ClientIpResolver(addresses);
  }

  /** The server-neutral rules this resolver applies. */
  public ClientAddresses addresses() {
    return addresses;
  }

  /**
   * A resolver trusting the same proxies that keys IPv6 clients by their first {@code bits} bits
   * ({@value #DEFAULT_IPV6_PREFIX_LENGTH} by default). A host is commonly given a whole /64 and may
   * pick any address in it, so keying by address would give it 2^64 quotas; 128 keys each address.
   *
   * @throws IllegalArgumentException if {@code bits} is not 1..128
   */
  public ClientIpResolver withIpv6PrefixLength(int bits) {
    return new ClientIpResolver(addresses.withIpv6PrefixLength(bits));
  }

  /** The IPv6 prefix length that clients are keyed by. */
  public int ipv6PrefixLength() {
    return addresses.ipv6PrefixLength();
  }

  /**
   * The key of the client of {@code request}: {@link RequestKey#address(String, int)} of {@link
   * #resolve(HttpServletRequest)}, so an IPv4 client by its address, an IPv4-mapped IPv6 client
   * ({@code ::ffff:192.0.2.1}) as that IPv4 address, and an IPv6 client by its prefix.
   */
  public RequestKey key(HttpServletRequest request) {
    return addresses.key(request.getRemoteAddr(), forwardedFor(request));
  }

  /** The client address of {@code request}. */
  public String resolve(HttpServletRequest request) {
    return addresses.resolve(request.getRemoteAddr(), forwardedFor(request));
  }

  private static List<String> forwardedFor(HttpServletRequest request) {
    Enumeration<String> headers = request.getHeaders(X_FORWARDED_FOR);
    return headers == null ? List.of() : Collections.list(headers);
  }

  @Override
  public String toString() {
    return "ClientIpResolver " + addresses;
  }
}
