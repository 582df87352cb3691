package io.slidingwindow.spring;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import org.springframework.http.server.reactive.ServerHttpRequest;

/**
 * The client address of a reactive request, as {@link ClientAddresses} finds it: the connection's
 * peer, and {@code X-Forwarded-For} only from trusted proxies. The one reading that the reactive
 * filter and the gateway's key resolvers share. Stateless.
 */
public final class ReactiveClientKeys {

  private ReactiveClientKeys() {}

  /**
   * The key of {@code request}'s client address (IPv6 by the prefix {@code addresses} keys by).
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public static RequestKey of(ClientAddresses addresses, ServerHttpRequest request) {
    if (addresses == null || request == null) {
      throw new IllegalArgumentException(
          "addresses and request must not be null, were " + addresses + " and " + request);
    }
    return addresses.key(remoteAddress(request), forwardedFor(request));
  }

  /** The peer's address as text, as a servlet container reports it; empty if unknown. */
  static String remoteAddress(ServerHttpRequest request) {
    InetSocketAddress remote = request.getRemoteAddress();
    if (remote == null) {
      return "";
    }
    InetAddress address = remote.getAddress();
    return address != null ? address.getHostAddress() : remote.getHostString();
  }

  /**
   * Every {@code X-Forwarded-For} value, in order, each as sent (not split at commas). Read through
   * {@code HttpHeaders.forEach}, whose signature Spring Framework 6 and 7 share: {@code
   * HttpHeaders.get} takes an {@code Object} in 6 and a {@code String} in 7, so a call compiled
   * against one fails on the other.
   */
  static List<String> forwardedFor(ServerHttpRequest request) {
    List<String> values = new ArrayList<>(1);
    request
        .getHeaders()
        .forEach(
            (name, lines) -> {
              if (name.equalsIgnoreCase(ClientAddresses.X_FORWARDED_FOR)) {
                values.addAll(lines);
              }
            });
    return values;
  }
}
