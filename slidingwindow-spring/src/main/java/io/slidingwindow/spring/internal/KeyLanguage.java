package io.slidingwindow.spring.internal;

import io.slidingwindow.http.RequestKey;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitKeyContext;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import org.springframework.expression.EvaluationContext;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.SpelNode;
import org.springframework.expression.spel.ast.BeanReference;
import org.springframework.expression.spel.ast.CompoundExpression;
import org.springframework.expression.spel.ast.ConstructorReference;
import org.springframework.expression.spel.ast.MethodReference;
import org.springframework.expression.spel.ast.Projection;
import org.springframework.expression.spel.ast.PropertyOrFieldReference;
import org.springframework.expression.spel.ast.Selection;
import org.springframework.expression.spel.ast.TypeReference;
import org.springframework.expression.spel.ast.VariableReference;
import org.springframework.expression.spel.standard.SpelExpression;
import org.springframework.expression.spel.standard.SpelExpressionParser;
import org.springframework.expression.spel.support.SimpleEvaluationContext;

/**
 * The one key language of rules in {@code application.yml} and of {@link RateLimit#key()}, free of
 * any server API: it checks a key's text and turns every form but {@code bean:NAME} into a function
 * over {@link RateLimitKeyContext}, which the servlet side ({@code slidingwindow-webmvc}) and the
 * reactive side ({@code slidingwindow-webflux}) each build from their own request.
 *
 * <p>A key is a shorthand or an expression. The shorthands are {@code ip} (the same key as the
 * expression {@code clientIp}), {@code principal} ({@code principal ?: clientIp}), {@code
 * header:NAME} ({@code header('NAME') ?: clientIp}), {@code global} ({@code global}) and {@code
 * bean:NAME} (a key resolver bean of the web stack). Anything else is a SpEL expression over {@link
 * RateLimitKeyContext}, run in a restricted context: read-only data binding of the properties
 * {@link KeyAccess} names, the root's methods and a few pure methods of text, and no type
 * references, constructors or bean lookups. Its root properties, methods and variables, and every
 * method it calls, are checked when the application starts, so a misspelt or forbidden name stops
 * it. A result is made a key by its content ({@link RequestKey#ofValue(Object)}: a {@link
 * RequestKey} as is, text as {@link RequestKey#custom(String)}, an array by its elements); null, a
 * throw, or a value that cannot be a key (whose {@code toString} is {@code Object}'s) counts the
 * request under its client's address.
 */
public final class KeyLanguage {

  /** The forms a key may take, for messages. */
  public static final String FORMS =
      "ip, principal, global, header:NAME, bean:NAME or a key expression";

  private static final SpelExpressionParser PARSER = new SpelExpressionParser();

  private KeyLanguage() {}

  /** {@code key} trimmed; empty for null. */
  public static String normalize(String key) {
    return key == null ? "" : key.trim();
  }

  /** The bean name of a {@code bean:NAME} key, or null if {@code key} has another form. */
  public static String beanName(String key) {
    String value = normalize(key);
    return value.startsWith("bean:") ? value.substring(5).trim() : null;
  }

  /**
   * The header name of a {@code header:NAME} key, or null if {@code key} has another form.
   *
   * @throws IllegalArgumentException naming {@code where} and the key if the name is not a token
   */
  public static String headerName(String where, String key) {
    String value = normalize(key);
    if (!value.startsWith("header:")) {
      return null;
    }
    String name = value.substring(7).trim();
    if (!name.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
      throw invalid(where, key, "header:NAME needs a header name", null);
    }
    return name;
  }

  /**
   * The function of {@code key} over a request's context, for every form but {@code bean:NAME}:
   * {@code ip} is {@code clientIp}, {@code principal} is {@code principal ?: clientIp}, {@code
   * header:NAME} is {@code header('NAME') ?: clientIp}, {@code global} is {@code global}, anything
   * else a checked expression.
   *
   * @throws IllegalArgumentException naming {@code where} and the key if it is none of the forms,
   *     or its expression does not parse or reads an unknown name
   */
  public static Function<RateLimitKeyContext, RequestKey> compile(String where, String key) {
    String value = normalize(key);
    switch (value) {
      case "ip" -> {
        return RateLimitKeyContext::getClientIp;
      }
      case "principal" -> {
        return context -> {
          RequestKey principal = context.getPrincipal();
          return principal != null ? principal : context.getClientIp();
        };
      }
      case "global" -> {
        return context -> RequestKey.global();
      }
      default -> {
        // a header or an expression: below
      }
    }
    String header = headerName(where, key);
    if (header != null) {
      return context -> {
        RequestKey typed = context.header(header);
        return typed != null ? typed : context.getClientIp();
      };
    }
    if (beanName(key) != null) {
      throw new IllegalArgumentException(where + " names a bean, was '" + key + "'");
    }
    return expression(where, key);
  }

  /**
   * The function of the SpEL expression {@code key}.
   *
   * @throws IllegalArgumentException naming {@code where} and the key if it is empty, does not
   *     parse or reads an unknown name
   */
  public static Function<RateLimitKeyContext, RequestKey> expression(String where, String key) {
    Function<RateLimitKeyContext, Object> value = value(where, key, "must be " + FORMS);
    return root -> {
      Object result = value.apply(root);
      if (result == null) {
        return null;
      }
      return RequestKey.ofValue(result);
    };
  }

  /**
   * The function of the SpEL expression {@code text} over a request's context, run as a key
   * expression is: in a {@link SimpleEvaluationContext} that reads only the properties and calls
   * only the methods {@link KeyAccess} allows (no type references, constructors or bean lookups),
   * whose root and variables are those of {@link RateLimitKeyContext}, every root name and every
   * method name checked now.
   *
   * @param what what the text must be, for messages, such as "must be a condition"
   * @throws IllegalArgumentException naming {@code where} and the text if it is empty, does not
   *     parse or reads an unknown name
   */
  public static Function<RateLimitKeyContext, Object> value(
      String where, String text, String what) {
    SpelExpression expression = parse(where, text, what, KeyAccess.REQUEST);
    return root -> {
      EvaluationContext context =
          SimpleEvaluationContext.forPropertyAccessors(KeyAccess.READ)
              .withMethodResolvers(KeyAccess.CALL)
              .withRootObject(root)
              .build();
      context.setVariable("request", root.getRequest());
      context.setVariable("clientIp", root.getClientIp());
      context.setVariable("principal", root.getPrincipal());
      context.setVariable("pathVariables", root.getPathVariables());
      return expression.getValue(context);
    };
  }

  /**
   * The function of {@code key} over a bean method's arguments, for {@link RateLimit} on a bean
   * method: empty or {@code global} is {@link RequestKey#global()}, anything else an expression
   * over {@link MethodKeyContext} that reads the arguments by name ({@code #order}, when the names
   * are compiled in), by position ({@code #p0}, {@code #a0}, {@code args[0]}), reads properties of
   * the application's own types and calls only the root's {@code key(...)} and pure methods of
   * text. A result is made a key by its content ({@link RequestKey#ofValue(Object)}); the function
   * gives null where the expression does, and throws where it does or where the result cannot be a
   * key ({@link io.slidingwindow.KeyRejectedException}).
   *
   * @param parameterCount how many parameters the method has
   * @param parameterNames the method's parameter names, or null if they are not known
   * @throws IllegalArgumentException naming {@code where} and the key if it is a form of the web
   *     (such as {@code ip} or {@code header:NAME}), does not parse or reads an unknown name
   */
  public static Function<Object[], RequestKey> methodKey(
      String where, String key, int parameterCount, String[] parameterNames) {
    String value = normalize(key);
    if (value.isEmpty() || value.equals("global")) {
      return arguments -> RequestKey.global();
    }
    String what = "must be global or an expression over the method's arguments";
    if (value.equals("ip")
        || value.equals("principal")
        || headerName(where, value) != null
        || beanName(value) != null) {
      throw invalid(where, key, what, "that form needs a web request", null);
    }
    Set<String> variables = new HashSet<>(MethodKeyContext.VARIABLES);
    for (int i = 0; i < parameterCount; i++) {
      variables.add("p" + i);
      variables.add("a" + i);
    }
    if (parameterNames != null) {
      variables.addAll(Arrays.asList(parameterNames));
    }
    KeyAccess.Vocabulary vocabulary =
        new KeyAccess.Vocabulary(
            MethodKeyContext.PROPERTIES, MethodKeyContext.METHODS, Set.copyOf(variables));
    SpelExpression expression = parse(where, key, what, vocabulary);
    return arguments -> {
      MethodKeyContext root = new MethodKeyContext(arguments);
      EvaluationContext context =
          SimpleEvaluationContext.forPropertyAccessors(KeyAccess.READ_ARGUMENTS)
              .withMethodResolvers(KeyAccess.CALL)
              .withRootObject(root)
              .build();
      context.setVariable("args", root.getArgs());
      for (int i = 0; i < arguments.length; i++) {
        context.setVariable("p" + i, arguments[i]);
        context.setVariable("a" + i, arguments[i]);
        if (parameterNames != null && i < parameterNames.length) {
          context.setVariable(parameterNames[i], arguments[i]);
        }
      }
      Object result = expression.getValue(context);
      if (result == null) {
        return null;
      }
      return RequestKey.ofValue(result);
    };
  }

  /**
   * The parsed {@code text}, every name it reads from the root and variables checked against {@code
   * vocabulary}.
   */
  private static SpelExpression parse(
      String where, String text, String what, KeyAccess.Vocabulary vocabulary) {
    String value = normalize(text);
    if (value.isEmpty()) {
      throw invalid(where, text, what, "it is empty", null);
    }
    SpelExpression expression;
    try {
      expression = (SpelExpression) PARSER.parseExpression(value);
    } catch (ParseException e) {
      throw invalid(where, text, what, e.getSimpleMessage(), e);
    }
    String unknown = unknownName(expression.getAST(), true, vocabulary);
    if (unknown != null) {
      throw invalid(where, text, what, unknown, null);
    }
    return expression;
  }

  /**
   * The first name in {@code node} that reads the root or a variable and is not one of {@code
   * vocabulary}'s, described; null if every one is known. {@code atRoot} says whether the node is
   * evaluated against the root (not against the value before it in a chain).
   */
  private static String unknownName(SpelNode node, boolean atRoot, KeyAccess.Vocabulary words) {
    if (node instanceof TypeReference
        || node instanceof ConstructorReference
        || node instanceof BeanReference) {
      return "'" + node.toStringAST() + "': no type, constructor or bean references";
    }
    if (atRoot
        && node instanceof PropertyOrFieldReference property
        && !words.properties().contains(property.getName())) {
      return "'" + property.getName() + "' is not one of " + new TreeSet<>(words.properties());
    }
    if (atRoot
        && node instanceof MethodReference method
        && !words.methods().contains(method.getName())) {
      return "'" + method.getName() + "(...)' is not one of " + new TreeSet<>(words.methods());
    }
    if (!atRoot
        && node instanceof MethodReference method
        && !KeyAccess.STRING_METHODS.contains(method.getName())) {
      return "'"
          + method.getName()
          + "(...)' is not a method expressions may call: only the root's "
          + new TreeSet<>(words.methods())
          + " and, on text, "
          + new TreeSet<>(KeyAccess.STRING_METHODS);
    }
    if (node instanceof VariableReference
        && !words.variables().contains(node.toStringAST().substring(1))) {
      return "'" + node.toStringAST() + "' is not one of #" + new TreeSet<>(words.variables());
    }
    if (node instanceof Selection || node instanceof Projection) {
      return null; // evaluated against each element, not the root
    }
    for (int i = 0; i < node.getChildCount(); i++) {
      // In a chain a.b(c), only a reads the root; arguments and indexes everywhere do.
      boolean childAtRoot = node instanceof CompoundExpression ? i == 0 && atRoot : true;
      String unknown = unknownName(node.getChild(i), childAtRoot, words);
      if (unknown != null) {
        return unknown;
      }
    }
    return null;
  }

  private static IllegalArgumentException invalid(
      String where, String key, String reason, Exception cause) {
    return invalid(where, key, "must be " + FORMS, reason, cause);
  }

  private static IllegalArgumentException invalid(
      String where, String text, String what, String reason, Exception cause) {
    return new IllegalArgumentException(
        where + " " + what + ", was '" + text + "': " + reason, cause);
  }
}
