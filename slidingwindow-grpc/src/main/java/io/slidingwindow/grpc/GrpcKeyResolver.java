package io.slidingwindow.grpc;

import io.grpc.Context;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Chooses the key a call is limited under: calls with equal keys share one set of windows.
 *
 * <p>Keys are {@link RequestKey}s, which name their source, so that a value a client chooses (a
 * metadata entry) can never name the bucket of another source: {@code x-api-key: 127.0.0.1} is not
 * the address 127.0.0.1. A resolver that returns null or throws does not exempt the call: it counts
 * under the client's address, as the interceptor finds it ({@link
 * RateLimitServerInterceptor.Builder#clientAddresses}), and the listener is told. The built-in
 * resolvers never do; those keyed on a metadata entry or a {@link Context} value fall back to the
 * client address when the call has none, so leaving the entry out does not escape the limit.
 *
 * <p>A resolver runs once per call, before the call's handler starts (for a rule that counts {@link
 * GrpcRateLimitRule#perMessage() per message}, once per message, later ones after the handler
 * started), with the {@link Context} the call started in (the one earlier interceptors attached,
 * holding what they authenticated). It must be quick and must not block: it may run on a transport
 * thread. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface GrpcKeyResolver {

  /** The metadata entry that proxies append the client address to. */
  Metadata.Key<String> X_FORWARDED_FOR =
      Metadata.Key.of("x-forwarded-for", Metadata.ASCII_STRING_MARSHALLER);

  /**
   * The key of a call; null (or a throw) counts it under its client's address.
   *
   * @param call the call, whose attributes hold the peer's address
   * @param headers the call's metadata as received
   * @param context the context the call started in
   */
  RequestKey key(ServerCall<?, ?> call, Metadata headers, Context context);

  /**
   * Keys on the client address: the peer's address, or behind proxies that {@code addresses} trusts
   * the right-most untrusted hop of the {@code x-forwarded-for} entries (see {@link
   * ClientAddresses}); IPv6 clients by their prefix (/64 by default).
   *
   * @throws IllegalArgumentException if {@code addresses} is null
   */
  static GrpcKeyResolver peerAddress(ClientAddresses addresses) {
    requireNonNull(addresses, "addresses");
    return (call, headers, context) -> clientKey(addresses, call, headers);
  }

  /**
   * Keys on the value of the ASCII metadata entry {@code name}, or on the client address found by
   * {@code addresses} when the call has none or a blank one. A client chooses its metadata: key on
   * an entry a proxy or an earlier interceptor has checked.
   *
   * <p>An entry sent more than once is keyed on its last value, the one {@link Metadata#get} gives
   * an application reading {@code headers.get(key)}: keyed on another, a client could send the key
   * the application checks plus a second value new on every call, and have a fresh window each
   * time. A value holding commas is one value, as it is to {@code Metadata.get}.
   *
   * @throws IllegalArgumentException if {@code name} is not a valid ASCII metadata key (binary
   *     keys, ending in {@code -bin}, are refused), or {@code addresses} is null
   */
  static GrpcKeyResolver metadata(String name, ClientAddresses addresses) {
    if (name == null || name.isBlank() || name.toLowerCase(Locale.ROOT).endsWith("-bin")) {
      throw new IllegalArgumentException(
          "metadata name must be an ASCII key (not '-bin'), was '" + name + "'");
    }
    requireNonNull(addresses, "addresses");
    Metadata.Key<String> key;
    try {
      key = Metadata.Key.of(name.trim(), Metadata.ASCII_STRING_MARSHALLER);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "metadata name must be a valid metadata key, was '" + name + "'", e);
    }
    String header = key.name();
    return (call, headers, context) -> {
      String value = headers.get(key);
      return value == null || value.isBlank()
          ? clientKey(addresses, call, headers)
          : RequestKey.header(header, value.trim());
    };
  }

  /**
   * Keys on the value of {@code key} in the call's {@link Context} (set by an earlier interceptor,
   * such as an authenticated user), by its content ({@link RequestKey#ofValue}: a {@link
   * RequestKey} as itself, text as an application-chosen key, an array by its elements); on the
   * client address found by {@code addresses} when the context has no value. A value that cannot be
   * a key (its class has {@code Object}'s {@code toString}, which names the instance) makes the
   * resolver throw, so that the call counts under the client's address and the listener is told.
   *
   * @throws IllegalArgumentException if an argument is null
   */
  static GrpcKeyResolver context(Context.Key<?> key, ClientAddresses addresses) {
    requireNonNull(key, "key");
    requireNonNull(addresses, "addresses");
    return (call, headers, context) -> {
      Object value = key.get(context);
      if (value == null) {
        return clientKey(addresses, call, headers);
      }
      return RequestKey.ofValue(value);
    };
  }

  /** One key for every call: the rule limits the methods as a whole, for all clients together. */
  static GrpcKeyResolver global() {
    return (call, headers, context) -> RequestKey.global();
  }

  /**
   * The key of the client of {@code call}: the peer's IP address as text (never looked up), and the
   * {@code x-forwarded-for} entries, through {@code addresses}.
   */
  private static RequestKey clientKey(
      ClientAddresses addresses, ServerCall<?, ?> call, Metadata headers) {
    SocketAddress peer = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
    String address;
    if (peer instanceof InetSocketAddress inet && inet.getAddress() != null) {
      address = inet.getAddress().getHostAddress();
    } else {
      address = String.valueOf(peer);
    }
    Iterable<String> forwarded = headers.getAll(X_FORWARDED_FOR);
    List<String> hops = new ArrayList<>(1);
    if (forwarded != null) {
      forwarded.forEach(hops::add);
    }
    return addresses.key(address, hops);
  }

  private static void requireNonNull(Object value, String name) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
  }
}
