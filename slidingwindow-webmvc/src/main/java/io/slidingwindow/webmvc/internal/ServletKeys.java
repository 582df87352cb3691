package io.slidingwindow.webmvc.internal;

import io.slidingwindow.http.RequestKey;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.spring.RateLimitKeyContext;
import io.slidingwindow.spring.internal.KeyLanguage;
import jakarta.servlet.http.HttpServletRequest;
import java.util.function.Function;

/**
 * The key language ({@link io.slidingwindow.spring.RateLimit#key()}, a rule's {@code key}) on
 * servlet requests. Stateless.
 */
public final class ServletKeys {

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
  public static KeyResolver resolver(
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
    return KeyResolver.typed(request -> compiled.apply(context(request, clientIp)));
  }

  /**
   * What a key expression, condition or cost reads of {@code request}, its client address found by
   * {@code clientIp}.
   */
  public static RateLimitKeyContext context(HttpServletRequest request, ClientIpResolver clientIp) {
    return new RateLimitKeyContext(new ServletKeySource(request, clientIp));
  }
}
