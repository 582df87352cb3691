package io.slidingwindow.spring;

import io.slidingwindow.http.RequestKey;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import java.util.function.Function;

/**
 * The one key language of rules in {@code application.yml} and of {@link RateLimit#key()}.
 *
 * <p>A key is a shorthand or an expression. The shorthands are {@code ip} (the same key as the
 * expression {@code clientIp}), {@code principal} ({@code principal ?: clientIp}), {@code
 * header:NAME} ({@code header('NAME') ?: clientIp}), {@code global} ({@code global}) and {@code
 * bean:NAME} (a {@link KeyResolver} bean, or in a reactive application a {@link
 * ReactiveKeyResolver} bean). Anything else is a SpEL expression over {@link RateLimitKeyContext},
 * run in a {@link org.springframework.expression.spel.support.SimpleEvaluationContext} (read-only
 * data binding and instance methods: no type references, constructors or bean lookups). Its root
 * properties, methods and variables are checked when the application starts, so a misspelt name
 * stops it. A result that is a {@link RequestKey} is used as is; any other is {@link
 * RequestKey#custom(String)} of its text; null leaves the request unlimited by the rule.
 *
 * <p>This class gives servlet {@link KeyResolver}s; {@link KeyLanguage} holds the parts the
 * reactive side shares.
 */
final class KeyExpressions {

  /** The forms a key may take, for messages. */
  static final String FORMS = KeyLanguage.FORMS;

  private KeyExpressions() {}

  /**
   * The resolver of {@code key}.
   *
   * @param where names the key in messages: a property, or an annotated method and "key"
   * @param beans looks up a {@link KeyResolver} bean by name; returns null if there is none
   * @throws IllegalArgumentException naming {@code where} and the key if it is none of the forms,
   *     names a missing bean, or its expression does not parse or reads an unknown name
   */
  static KeyResolver resolver(
      String where, String key, ClientIpResolver clientIp, Function<String, KeyResolver> beans) {
    switch (KeyLanguage.normalize(key)) {
      case "ip" -> {
        return KeyResolver.clientIp(clientIp);
      }
      case "principal" -> {
        return KeyResolver.principal(clientIp);
      }
      case "global" -> {
        return KeyResolver.global();
      }
      default -> {
        // a header, a bean or an expression: below
      }
    }
    String header = KeyLanguage.headerName(where, key);
    if (header != null) {
      return KeyResolver.header(header, clientIp);
    }
    String beanName = KeyLanguage.beanName(key);
    if (beanName != null) {
      KeyResolver bean = beans.apply(beanName);
      if (bean == null) {
        throw new IllegalArgumentException(where + " names no KeyResolver bean, was '" + key + "'");
      }
      return bean;
    }
    Function<RateLimitKeyContext, RequestKey> expression = KeyLanguage.expression(where, key);
    return KeyResolver.typed(
        request ->
            expression.apply(new RateLimitKeyContext(new ServletKeySource(request, clientIp))));
  }
}
