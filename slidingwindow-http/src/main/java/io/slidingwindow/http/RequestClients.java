package io.slidingwindow.http;

import io.slidingwindow.LimiterKeys;
import java.lang.System.Logger.Level;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How an {@link EnforcementCore} finds the key of a request's client: the group of every rule's
 * key, and the key a request counts under when its rule's key cannot be found. Without a client key
 * function, keys have no group and such requests count under {@link RequestKey#global()}.
 * Immutable; thread-safe if the function is.
 */
final class RequestClients<Q> {

  private static final System.Logger LOG = System.getLogger(EnforcementCore.class.getName());

  private final Function<? super Q, RequestKey> clientKey;

  /** Clients found by {@code clientKey}, or none if it is null. */
  RequestClients(Function<? super Q, RequestKey> clientKey) {
    this.clientKey = clientKey;
  }

  /**
   * The bounded key of {@code request}'s client, found at most once, when a rule first needs it;
   * {@link RequestKey#global()} without a client key function, or if it gives null or throws.
   */
  Supplier<String> of(Q request) {
    String[] found = new String[1];
    return () -> {
      if (found[0] == null) {
        RequestKey key = null;
        try {
          key = clientKey != null ? clientKey.apply(request) : null;
        } catch (RuntimeException e) {
          LOG.log(Level.DEBUG, "the client key function failed: " + e);
        }
        found[0] = LimiterKeys.bounded((key == null ? RequestKey.global() : key).value());
      }
      return found[0];
    };
  }

  /** The group of a rule's key: the client's key, or null without a client key function. */
  String groupOf(Supplier<String> client) {
    return clientKey != null ? client.get() : null;
  }
}
