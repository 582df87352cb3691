package io.slidingwindow.gateway;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.spring.ReactiveClientKeys;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Key resolvers for a route's {@code RequestRateLimiter} filter that a client cannot walk around:
 * the gateway's side of the servlet path's key resolvers, with the same key namespaces ({@link
 * RequestKey}) and the same client address ({@link ClientAddresses}: the connection's peer, {@code
 * X-Forwarded-For} only from trusted proxies, an IPv6 client by its /64).
 *
 * <p>Each resolver always resolves a key, so the filter never answers an empty key, and never gives
 * a client a fresh quota for a value it made up: an API key counts on its own only if the
 * application issued it ({@link #issuedKey}); anything else, and a key function that gives null or
 * throws ({@link #typed}), counts against the client's address. Keys carry their source ({@code
 * ip:203.0.113.7}, {@code header:x-api-key:...}, {@code principal:...}), so no client-chosen value
 * can name another client's address. Thread-safe; none of them blocks.
 */
public final class GatewayKeys {

  private static final Logger LOG = LoggerFactory.getLogger(GatewayKeys.class);

  private GatewayKeys() {}

  /**
   * Keys on the client address.
   *
   * @throws IllegalArgumentException if {@code addresses} is null
   */
  public static KeyResolver clientAddress(ClientAddresses addresses) {
    requireNonNull(addresses, "addresses");
    return exchange -> Mono.just(address(addresses, exchange));
  }

  /**
   * Keys on the authenticated principal's name, else on the client address: what the gateway's own
   * default ({@code PrincipalNameKeyResolver}) does for users, without refusing anonymous requests.
   *
   * @throws IllegalArgumentException if {@code addresses} is null
   */
  public static KeyResolver principalOrAddress(ClientAddresses addresses) {
    requireNonNull(addresses, "addresses");
    return exchange ->
        exchange
            .getPrincipal()
            .flatMap(user -> Mono.justOrEmpty(user.getName()))
            .map(name -> RequestKey.principal(name).value())
            .onErrorResume(error -> Mono.empty())
            .switchIfEmpty(Mono.fromSupplier(() -> address(addresses, exchange)));
  }

  /**
   * Keys on the API key in header {@code header} when {@code issued} says the application issued it
   * ({@code header:<name>:<key>}); on the client address otherwise (no header, a blank one, or a
   * value nobody issued), so that rotating made-up keys buys nothing.
   *
   * @param issued whether a value is an issued key; must not block (a set's {@code contains})
   * @throws IllegalArgumentException if an argument is null, or {@code header} is blank
   */
  public static KeyResolver issuedKey(
      String header, Predicate<String> issued, ClientAddresses addresses) {
    if (header == null || header.isBlank()) {
      throw new IllegalArgumentException("header must not be blank, was '" + header + "'");
    }
    requireNonNull(issued, "issued");
    String name = header.trim();
    return typed(
        exchange -> {
          String value = exchange.getRequest().getHeaders().getFirst(name);
          if (value == null || value.isBlank() || !issued.test(value.trim())) {
            return null;
          }
          return RequestKey.header(name, value.trim());
        },
        addresses);
  }

  /**
   * Keys on what {@code keys} gives for an exchange; on the client address when it gives null or
   * throws. A throw is logged at WARN the first time, at DEBUG after that, never with a stack trace
   * per request.
   *
   * @param keys the key of an exchange, or null; must not block
   * @throws IllegalArgumentException if an argument is null
   */
  public static KeyResolver typed(
      Function<ServerWebExchange, RequestKey> keys, ClientAddresses addresses) {
    requireNonNull(keys, "keys");
    requireNonNull(addresses, "addresses");
    AtomicBoolean warned = new AtomicBoolean();
    return exchange -> {
      RequestKey key;
      try {
        key = keys.apply(exchange);
      } catch (RuntimeException e) {
        if (warned.compareAndSet(false, true)) {
          LOG.warn(
              "slidingwindow: a gateway key function failed; such requests count against their"
                  + " client address. Logged once per key resolver.",
              e);
        } else {
          LOG.debug("slidingwindow: a gateway key function failed: {}", e.toString());
        }
        key = null;
      }
      return Mono.just(key != null ? key.value() : address(addresses, exchange));
    };
  }

  private static String address(ClientAddresses addresses, ServerWebExchange exchange) {
    return ReactiveClientKeys.of(addresses, exchange.getRequest()).value();
  }

  private static void requireNonNull(Object value, String name) {
    if (value == null) {
      throw new IllegalArgumentException(name + " must not be null");
    }
  }
}
