package io.slidingwindow.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;

/**
 * Finds the address of the client that sent a request, trusting {@code X-Forwarded-For} only as
 * far as it was written by proxies the operator named.
 *
 * <p>The client address is the request's {@code remoteAddr} (the peer of the TCP connection),
 * unless that peer is a trusted proxy. Then the {@code X-Forwarded-For} hops (every such header,
 * in order, comma-separated) are read from right to left, skipping trusted proxies, and the first
 * untrusted hop is the client. A client cannot forge its address: whatever it writes into the
 * header is to the left of the hop that the trusted proxy appended. If every hop is trusted, the
 * left-most hop is the client; if there is no header, {@code remoteAddr} is.
 *
 * <p>Hops may carry an IPv6 address in brackets and a port ({@code [::1]:8080}, {@code
 * 10.0.0.1:443}); both are dropped. Host names and garbage are never trusted and never looked up.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class ClientIpResolver {

  /** The name of the header that proxies append the client to. */
  public static final String X_FORWARDED_FOR = "X-Forwarded-For";

  private static final ClientIpResolver DIRECT = new ClientIpResolver(List.of());

  private final List<IpRange> trustedProxies;

  private ClientIpResolver(List<IpRange> trustedProxies) {
    this.trustedProxies = trustedProxies;
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
    return new ClientIpResolver(List.copyOf(ranges));
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
    return "ClientIpResolver trusting " + trustedProxies;
  }
}
