package io.slidingwindow.spring;

import io.slidingwindow.http.RequestKey;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import java.util.function.Function;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * The one key language of rules in {@code application.yml} and of {@link RateLimit#key()}.
 *
 * <p>A key is a shorthand or an expression. The shorthands are {@code ip} (the same key as the
 * expression {@code clientIp}), {@code principal} ({@code principal ?: clientIp}), {@code
 * header:NAME} ({@code header('NAME') ?: clientIp}), {@code global} ({@code global}) and {@code
 * bean:NAME} (a {@link KeyResolver} bean). Anything else is a SpEL expression over {@link
 * RateLimitKeyContext}, run in a {@link SimpleEvaluationContext} (read-only data binding and
 * instance methods: no type references, constructors or bean lookups). Its root properties, methods
 * and variables are checked when the application starts, so a misspelt name stops it. A result that
 * is a {@link RequestKey} is used as is; any other is {@link RequestKey#custom(String)} of its
 * text; null leaves the request unlimited by the rule.
 */
final class KeyExpressions {

  /** The forms a key may take, for messages. */
  static final String FORMS = "ip, principal, global, header:NAME, bean:NAME or a key expression";

  private static final SpelExpressionParser PARSER = new SpelExpressionParser();

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
    String value = key == null ? "" : key.trim();
    switch (value) {
      case "ip":
        return KeyResolver.clientIp(clientIp);
      case "principal":
        return KeyResolver.principal(clientIp);
      case "global":
        return KeyResolver.global();
      default:
        break;
    }
    if (value.startsWith("header:")) {
      String name = value.substring(7).trim();
      if (!name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
        throw invalid(where, key, "header:NAME needs a header name", null);
      }
      return KeyResolver.header(name, clientIp);
    }
    if (value.startsWith("bean:")) {
      KeyResolver bean = beans.apply(value.substring(5).trim());
      if (bean == null) {
        throw new IllegalArgumentException(where + " names no KeyResolver bean, was '" + key + "'");
      }
      return bean;
    }
    if (value.isEmpty()) {
      throw invalid(where, key, "it is empty", null);
    }
    SpelExpression expression;
    try {
      expression = (SpelExpression) PARSER.parseExpression(value);
    } catch (ParseException e) {
      throw invalid(where, key, e.getSimpleMessage(), e);
    }
    String unknown = unknownName(expression.getAST(), true);
    if (unknown != null) {
      throw invalid(where, key, unknown, null);
    }
    return KeyResolver.typed(
        request -> {
          RateLimitKeyContext root = new RateLimitKeyContext(request, clientIp);
          EvaluationContext context =
              SimpleEvaluationContext.forReadOnlyDataBinding()
                  .withInstanceMethods()
                  .withRootObject(root)
                  .build();
          context.setVariable("request", request);
          context.setVariable("clientIp", root.getClientIp());
          context.setVariable("principal", root.getPrincipal());
          context.setVariable("pathVariables", root.getPathVariables());
          Object result = expression.getValue(context);
          if (result == null) {
            return null;
          }
          return result instanceof RequestKey typed ? typed : RequestKey.custom(result.toString());
        });
  }

  /**
   * The first name in {@code node} that reads the root or a variable and is not one of {@link
   * RateLimitKeyContext}'s, described; null if every one is known. {@code atRoot} says whether the
   * node is evaluated against the root (not against the value before it in a chain).
   */
  private static String unknownName(SpelNode node, boolean atRoot) {
    if (atRoot
        && node instanceof PropertyOrFieldReference property
        && !RateLimitKeyContext.PROPERTIES.contains(property.getName())) {
      return "'" + property.getName() + "' is not one of " + RateLimitKeyContext.PROPERTIES;
    }
    if (atRoot
        && node instanceof MethodReference method
        && !RateLimitKeyContext.METHODS.contains(method.getName())) {
      return "'" + method.getName() + "(...)' is not one of " + RateLimitKeyContext.METHODS;
    }
    if (node instanceof VariableReference
        && !RateLimitKeyContext.VARIABLES.contains(node.toStringAST().substring(1))) {
      return "'" + node.toStringAST() + "' is not one of #" + RateLimitKeyContext.VARIABLES;
    }
    if (node instanceof Selection || node instanceof Projection) {
      return null; // evaluated against each element, not the root
    }
    for (int i = 0; i < node.getChildCount(); i++) {
      // In a chain a.b(c), only a reads the root; arguments and indexes everywhere do.
      boolean childAtRoot = node instanceof CompoundExpression ? i == 0 && atRoot : true;
      String unknown = unknownName(node.getChild(i), childAtRoot);
      if (unknown != null) {
        return unknown;
      }
    }
    return null;
  }

  private static IllegalArgumentException invalid(
      String where, String key, String reason, Exception cause) {
    return new IllegalArgumentException(
        where + " must be " + FORMS + ", was '" + key + "': " + reason, cause);
  }
}
