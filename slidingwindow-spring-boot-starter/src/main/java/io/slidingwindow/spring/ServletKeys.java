package io.slidingwindow.spring;

import io.slidingwindow.http.RequestKey;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import java.util.function.Function;

/** The key language of {@link KeyLanguage} for servlet requests. */
final class ServletKeys {

  private ServletKeys() {}

  /**
   * The resolver of {@code key}: {@code bean:NAME} names a {@link KeyResolver} bean, every other
   * form reads the request through {@link KeyLanguage#compile}, as it does in a reactive
   * application.
   *
   * @param where names the key in messages: a property, or an annotated method and "key"
   * @param beans looks up a {@link KeyResolver} bean by name; returns null if there is none
   * @throws IllegalArgumentException naming {@code where} and the key if it is none of the forms,
   *     names a missing bean, or its expression does not parse or reads an unknown name
   */
  static KeyResolver resolver(
      String where, String key, ClientIpResolver clientIp, Function<String, KeyResolver> beans) {
    String beanName = KeyLanguage.beanName(key);
    if (beanName != null) {
      KeyResolver bean = beans.apply(beanName);
      if (bean == null) {
        throw new IllegalArgumentException(where + " names no KeyResolver bean, was '" + key + "'");
      }
      return bean;
    }
    Function<RateLimitKeyContext, RequestKey> compiled = KeyLanguage.compile(where, key);
    return KeyResolver.typed(
        request ->
            compiled.apply(new RateLimitKeyContext(new ServletKeySource(request, clientIp))));
  }
}
