package io.slidingwindow.http;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import java.util.List;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

/**
 * One rule of an {@link EnforcementCore} with what it reads from a request (its condition, its key,
 * its cost) and its limiter. Immutable; thread-safe if the functions and the limiter are.
 *
 * @param rule the rule
 * @param applies whether the rule applies to a request that matches its paths and methods
 * @param keys the request's key, null to skip the request
 * @param permits the permits the request asks for; raised to the rule's cost if fewer
 * @param limiter the rule's limiter
 * @param policies the policy name of each limit
 */
record RuleEntry<Q>(
    HttpRule rule,
    Predicate<? super Q> applies,
    Function<? super Q, RequestKey> keys,
    ToLongFunction<? super Q> permits,
    KeyedRateLimiter<String> limiter,
    List<String> policies) {

  /**
   * Whether the rule's condition holds for {@code request}; true if the condition throws, which
   * {@code calls} is told of: a failing condition never exempts a request.
   */
  boolean applies(Q request, ListenerCalls calls) {
    try {
      return applies.test(request);
    } catch (RuntimeException e) {
      calls.error(rule, e, "its condition failed, so the rule applies");
      return true;
    }
  }

  /**
   * The permits {@code request} takes: what it asks for, but at least the rule's cost; the rule's
   * cost if asking throws, which {@code calls} is told of.
   */
  long permitsOf(Q request, ListenerCalls calls) {
    long asked;
    try {
      asked = permits.applyAsLong(request);
    } catch (RuntimeException e) {
      calls.error(rule, e, "its cost failed, so the request costs " + rule.cost());
      asked = rule.cost();
    }
    return Math.max(asked, rule.cost());
  }

  /**
   * The refusal of a request for more {@code permits} than a limit holds, which no wait would
   * grant, without asking the limiter; null if every limit can grant them. Its {@code retryAfter}
   * and {@code resetAfter} are that limit's window, and {@code remaining} is 0 (not asked).
   */
  Decision overLimit(long permits) {
    Limit limit = rule.limitBelow(permits);
    return limit == null ? null : Decision.refused(0, limit.window(), limit.window(), limit);
  }

  /**
   * The bounded key of the request if the rule matches one of its {@code paths} and {@code method}
   * and applies to it; null to skip it, also if finding the key throws, which {@code calls} is told
   * of.
   */
  String keyOf(Q request, String method, List<String> paths, ListenerCalls calls) {
    if (!matchesAny(method, paths) || !applies(request, calls)) {
      return null;
    }
    try {
      RequestKey key = keys.apply(request);
      return key == null ? null : BoundedKeys.of(key.value());
    } catch (RuntimeException e) {
      calls.error(rule, e, "request let through");
      return null;
    }
  }

  private boolean matchesAny(String method, List<String> paths) {
    for (int i = 0; i < paths.size(); i++) {
      if (rule.matches(method, paths.get(i))) {
        return true;
      }
    }
    return false;
  }
}
