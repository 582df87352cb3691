package io.slidingwindow.testkit.http;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Fresh client addresses, each handed out once per JVM: loopback addresses to connect from ({@code
 * 127.a.b.c}, never {@code 127.0.0.1}, the trusted proxy), and documentation addresses for clients
 * behind the trusted proxy ({@code 198.18.0.0/15}, {@code 2001:db8::/32} prefixes), so that attacks
 * never share a quota. Thread-safe.
 */
final class Peers {

  private static final AtomicInteger NEXT = new AtomicInteger(1 << 16);

  private Peers() {}

  private static int next() {
    return NEXT.getAndIncrement();
  }

  /** A loopback address no test has connected from yet. */
  static InetAddress loopback() {
    int n = next();
    while ((n & 0xFF) == 0 || (n & 0xFF) == 0xFF) {
      n = next();
    }
    try {
      return InetAddress.getByAddress(
          new byte[] {127, (byte) (n >>> 16), (byte) (n >>> 8), (byte) n});
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The trusted proxy's address, 127.0.0.1. */
  static InetAddress proxy() {
    return InetAddress.getLoopbackAddress();
  }

  /** An IPv4 address of a client behind the proxy that no test has used yet. */
  static String forwardedIpv4() {
    int n = next();
    return "198." + (18 + ((n >>> 16) & 1)) + "." + ((n >>> 8) & 0xFF) + "." + (n & 0xFF);
  }

  /** A /64 prefix of clients behind the proxy that no test has used yet, such as "2001:db8:1:2". */
  static String forwardedIpv6Prefix() {
    int n = next();
    return "2001:db8:" + Integer.toHexString(n >>> 16) + ":" + Integer.toHexString(n & 0xFFFF);
  }
}
