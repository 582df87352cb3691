package io.slidingwindow.spring.boot.web;

import io.slidingwindow.spring.RateLimitKeyContext;
import io.slidingwindow.spring.internal.KeyLanguage;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * A rule's per-request terms from {@code application.yml}: when it applies ({@code
 * execute-condition}, {@code skip-condition}) and how many permits a request takes ({@code
 * cost-header} or {@code cost-expression}, never fewer than {@code cost}). The expressions are
 * key-language expressions ({@link KeyLanguage#value}): the same root, variables and restricted
 * evaluation on both web stacks.
 *
 * <p>At request time: a condition that throws or gives anything but true or false fails, so the
 * rule applies and the listener's {@code onError} is told. A cost header that is missing, blank,
 * not an integer, zero or negative asks nothing, so the request takes the rule's {@code cost}; one
 * with more digits than a long holds asks {@link Long#MAX_VALUE}, which is refused. A cost
 * expression may give a number (a fraction is rounded up), the text of one (read as a header is) or
 * null (the rule's cost); anything else, or a throw, takes the rule's cost and tells {@code
 * onError}. A request that asks more permits than a limit holds is refused (see {@link
 * io.slidingwindow.http.EnforcementCore}).
 *
 * @param condition whether the rule applies, null for always
 * @param cost the permits asked for, null for the rule's fixed cost
 */
record RuleTerms(
    Predicate<RateLimitKeyContext> condition, ToLongFunction<RateLimitKeyContext> cost) {

  /** A rule's terms with neither conditions nor a per-request cost. */
  static final RuleTerms NONE = new RuleTerms(null, null);

  /**
   * The terms of {@code rule}, checked now.
   *
   * @param prefix the rule's property path, {@code slidingwindow.http.rules.NAME}
   * @throws IllegalArgumentException naming the property if an expression is invalid, the cost
   *     header is not a header name, or both a cost header and a cost expression are set
   */
  static RuleTerms of(String prefix, SlidingWindowHttpProperties.Rule rule) {
    Predicate<RateLimitKeyContext> execute =
        condition(prefix + ".execute-condition", rule.getExecuteCondition());
    Predicate<RateLimitKeyContext> skip =
        condition(prefix + ".skip-condition", rule.getSkipCondition());
    Predicate<RateLimitKeyContext> condition;
    if (execute != null && skip != null) {
      condition = context -> execute.test(context) && !skip.test(context);
    } else if (skip != null) {
      condition = skip.negate();
    } else {
      condition = execute;
    }
    String header = KeyLanguage.normalize(rule.getCostHeader());
    String expression = KeyLanguage.normalize(rule.getCostExpression());
    if (!header.isEmpty() && !expression.isEmpty()) {
      throw new IllegalArgumentException(
          prefix
              + ".cost-header: set cost-header or cost-expression, not both; were '"
              + header
              + "' and '"
              + expression
              + "'");
    }
    ToLongFunction<RateLimitKeyContext> cost = null;
    if (!header.isEmpty()) {
      if (!header.matches("[!#$%&'*+.^_`|~0-9A-Za-z-]+")) {
        throw new IllegalArgumentException(
            prefix + ".cost-header must be a header name, was '" + rule.getCostHeader() + "'");
      }
      cost = context -> permitsOf(context.headerValue(header));
    } else if (!expression.isEmpty()) {
      Function<RateLimitKeyContext, Object> value =
          KeyLanguage.value(
              prefix + ".cost-expression", expression, "must be an expression giving permits");
      cost = context -> permitsOf(value.apply(context));
    }
    return condition == null && cost == null ? NONE : new RuleTerms(condition, cost);
  }

  /** The condition over a request of the adapter's type, read through {@code contexts}. */
  <Q> Predicate<Q> condition(Function<? super Q, RateLimitKeyContext> contexts) {
    Predicate<RateLimitKeyContext> test = condition;
    return test == null ? request -> true : request -> test.test(contexts.apply(request));
  }

  /**
   * The cost of a request of the adapter's type, read through {@code contexts}; {@code fixed} if
   * there is no per-request cost.
   */
  <Q> ToLongFunction<Q> cost(Function<? super Q, RateLimitKeyContext> contexts, long fixed) {
    ToLongFunction<RateLimitKeyContext> asked = cost;
    return asked == null ? request -> fixed : request -> asked.applyAsLong(contexts.apply(request));
  }

  private static Predicate<RateLimitKeyContext> condition(String property, String text) {
    if (text == null) {
      return null;
    }
    Function<RateLimitKeyContext, Object> value =
        KeyLanguage.value(property, text, "must be a condition (true or false)");
    return context -> {
      Object result = value.apply(context);
      if (result instanceof Boolean holds) {
        return holds;
      }
      throw new IllegalStateException(property + " must give true or false, gave " + result);
    };
  }

  /** The permits asked for by a header's text (0 for nothing usable). */
  static long permitsOf(String text) {
    if (text == null) {
      return 0;
    }
    String value = text.trim();
    if (!value.matches("\\+?[0-9]+")) {
      return 0; // missing, blank, negative or not an integer: the rule's cost
    }
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      return Long.MAX_VALUE; // more digits than a long holds: more than any limit
    }
  }

  /** The permits asked for by an expression's result. */
  static long permitsOf(Object result) {
    if (result == null) {
      return 0;
    }
    if (result instanceof Long || result instanceof Integer || result instanceof Short) {
      return ((Number) result).longValue();
    }
    if (result instanceof Number number) {
      double value = number.doubleValue();
      return Double.isNaN(value) ? 0 : (long) Math.ceil(value);
    }
    if (result instanceof CharSequence text) {
      return permitsOf(text.toString());
    }
    throw new IllegalStateException("a cost expression must give a number, gave " + result);
  }
}
