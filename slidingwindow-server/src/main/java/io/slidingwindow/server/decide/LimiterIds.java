package io.slidingwindow.server.decide;

import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.server.config.Rule;

/**
 * The ids that descriptors are counted under, each through {@link LimiterKeys#bounded}, the one
 * long-key rule. Parts are length-prefixed ({@code 5:alice}), so that no two descriptors share an
 * id. In memory each rule has a limiter of its own, so an id holds only the counted values, and a
 * descriptor of one entry is counted under its value itself, which allocates nothing. In a store
 * that all rules share (Redis), an id starts with a mark of its source ({@code r} a configured
 * rule, {@code o} a descriptor's own limit) and the domain, then the rule's selector and limits:
 * Redis names a key by its id and its limit's window (not its permits, so that an admin override
 * keeps the counts of the windows it shares with the rule), and a rule whose limits change in the
 * configuration starts from zero there as in memory. Stateless.
 */
final class LimiterIds {

  private LimiterIds() {}

  /**
   * What a rule's ids start with: nothing in memory, the rule's source mark, domain, {@link
   * Rule#selector() selector} (not its path, which two rules may share) and limits (permits, window
   * and precision in microseconds) else.
   */
  static String rulePrefix(Rule rule, boolean shared) {
    if (!shared) {
      return "";
    }
    StringBuilder prefix = new StringBuilder("r");
    append(prefix, rule.domain());
    append(prefix, rule.selector());
    StringBuilder limits = new StringBuilder();
    for (Limit limit : rule.limits()) {
      limits
          .append(limit.permits())
          .append('/')
          .append(limit.windowNanos() / 1000)
          .append('/')
          .append(limit.precisionNanos() / 1000)
          .append(';');
    }
    append(prefix, limits.toString());
    return prefix.toString();
  }

  /** The id of descriptor {@code d} of {@code request}, counted by {@code rule}. */
  static String ofRule(String prefix, Rule rule, DecisionRequest request, int d) {
    int entries = request.entries(d);
    if (prefix.isEmpty() && entries == 1) {
      return LimiterKeys.bounded(rule.countedValue(0, request.value(d, 0)));
    }
    StringBuilder id = new StringBuilder(prefix.length() + 16 * entries).append(prefix);
    for (int e = 0; e < entries; e++) {
      append(id, rule.countedValue(e, request.value(d, e)));
    }
    return LimiterKeys.bounded(id.toString());
  }

  /**
   * The id of descriptor {@code d} of {@code request}, counted by its own limit: its keys and
   * values, since one limiter serves every descriptor of the domain with that limit.
   */
  static String ofOverride(boolean shared, DecisionRequest request, int d) {
    StringBuilder id = new StringBuilder("o");
    if (shared) {
      append(id, request.domain());
    }
    for (int e = 0; e < request.entries(d); e++) {
      append(id, request.key(d, e));
      append(id, request.value(d, e));
    }
    return LimiterKeys.bounded(id.toString());
  }

  private static void append(StringBuilder id, String part) {
    id.append(part.length()).append(':').append(part);
  }
}
