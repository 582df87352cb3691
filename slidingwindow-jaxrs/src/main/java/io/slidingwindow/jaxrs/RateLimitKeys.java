package io.slidingwindow.jaxrs;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.HttpRule;
import java.util.Map;

/** Reads the name and the key of a {@link RateLimit}. Stateless. */
final class RateLimitKeys {

  private RateLimitKeys() {}

  /**
   * A rule builder named {@code name}; {@code byDefault} if the annotation gave none and {@code
   * name} is made of the simple name of {@code type}, the class the runtime calls.
   *
   * @throws IllegalArgumentException if {@code name} cannot name a rule, saying what to do when it
   *     is a default name
   */
  static HttpRule.Builder rule(String name, boolean byDefault, Class<?> type) {
    try {
      return HttpRule.builder(name);
    } catch (IllegalArgumentException e) {
      if (!byDefault) {
        throw e;
      }
      throw new IllegalArgumentException(
          e.getMessage()
              + ", the default name, made of the simple name of "
              + type.getName()
              + ", which a class generated at run time (a proxy) may have: give the annotation a"
              + " name (name = \"...\")",
          e);
    }
  }

  /**
   * The resolver that {@code key} names, with {@code addresses} for the keys of client addresses
   * and {@code resolvers} for {@code resolver:NAME}.
   *
   * @throws IllegalArgumentException if {@code key} names no key, or a resolver not given
   */
  static JaxrsKeyResolver of(
      String key, ClientAddresses addresses, Map<String, JaxrsKeyResolver> resolvers) {
    String text = key.trim();
    if (text.isEmpty() || text.equals("ip")) {
      return JaxrsKeyResolver.clientAddress(addresses);
    }
    if (text.equals("principal")) {
      return JaxrsKeyResolver.principal(addresses);
    }
    if (text.equals("global")) {
      return JaxrsKeyResolver.global();
    }
    if (text.startsWith("header:")) {
      return JaxrsKeyResolver.header(text.substring(7), addresses);
    }
    if (text.startsWith("resolver:")) {
      JaxrsKeyResolver resolver = resolvers.get(text.substring(9));
      if (resolver == null) {
        throw new IllegalArgumentException(
            "key names resolver '"
                + text.substring(9)
                + "', which the feature was not given; it has "
                + resolvers.keySet());
      }
      return resolver;
    }
    throw new IllegalArgumentException(
        "key must be ip, principal, global, header:NAME or resolver:NAME, was '" + key + "'");
  }
}
