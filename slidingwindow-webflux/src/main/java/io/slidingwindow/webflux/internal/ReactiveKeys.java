package io.slidingwindow.webflux.internal;

import io.slidingwindow.http.RequestKey;
import io.slidingwindow.spring.RateLimitKeyContext;
import io.slidingwindow.spring.internal.KeyLanguage;
import io.slidingwindow.webflux.ReactiveKeyResolver;
import java.util.function.Function;

/**
 * The key language ({@link io.slidingwindow.spring.RateLimit#key()}, a rule's {@code key}) on
 * reactive requests. Stateless.
 */
public final class ReactiveKeys {

  private ReactiveKeys() {}

  /**
   * The key function of {@code key}: {@code bean:NAME} names a {@link ReactiveKeyResolver} bean,
   * every other form reads the request as it does in a servlet application.
   *
   * @param where names the key in messages: a property, or an annotated method and "key"
   * @param beans looks up a {@link ReactiveKeyResolver} bean by name; returns null if there is none
   * @throws IllegalArgumentException naming {@code where} and the key if it is none of the forms,
   *     names a missing bean, or its expression does not parse or reads an unknown name
   */
  public static Function<ReactiveKeySource, RequestKey> resolver(
      String where, String key, Function<String, ReactiveKeyResolver> beans) {
    String beanName = KeyLanguage.beanName(key);
    if (beanName != null) {
      ReactiveKeyResolver bean = beans.apply(beanName);
      if (bean == null) {
        throw new IllegalArgumentException(
            where + " names no ReactiveKeyResolver bean, was '" + key + "'");
      }
      return source -> bean.key(source.exchange(), source.principal());
    }
    Function<RateLimitKeyContext, RequestKey> compiled = KeyLanguage.compile(where, key);
    return source -> compiled.apply(source.context());
  }
}
