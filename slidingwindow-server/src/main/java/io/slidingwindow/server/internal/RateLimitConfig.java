package io.slidingwindow.server.internal;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A loaded configuration: the descriptor tree of every domain. Immutable once built, so it is safe
 * to share between threads.
 */
public final class RateLimitConfig {

  /**
   * The rule one descriptor selects, with the key its counts live under.
   *
   * @param rule the rule
   * @param values the descriptor's values as counted: a value matched by a wildcard with {@code
   *     share_threshold} is replaced by the pattern, so that all such values share one count
   */
  record Match(Rule rule, List<String> values) {}

  private final Map<String, DescriptorNode> domains;
  private final List<Rule> rules;

  RateLimitConfig(Map<String, DescriptorNode> domains, List<Rule> rules) {
    this.domains = Map.copyOf(domains);
    this.rules = List.copyOf(rules);
  }

  /** Whether {@code domain} is configured. */
  public boolean hasDomain(String domain) {
    return domains.containsKey(domain);
  }

  /** The configured domains. */
  public List<String> domains() {
    List<String> names = new ArrayList<>(domains.keySet());
    Collections.sort(names);
    return names;
  }

  /** Every configured rule. */
  public List<Rule> rules() {
    return rules;
  }

  /**
   * The rule that a descriptor with these entries selects in {@code domain}, as
   * envoyproxy/ratelimit selects it: entry {@code i} is looked up among the children selected by
   * entry {@code i - 1} (see {@link DescriptorNode#select}), and only a rule at the level of the
   * last entry applies, so a descriptor with more or fewer entries than the configured nesting
   * matches nothing.
   *
   * @return the match, or null if no rule applies (or the domain is unknown)
   */
  Match match(String domain, List<String> keys, List<String> values) {
    DescriptorNode level = domains.get(domain);
    if (level == null) {
      return null;
    }
    List<String> counted = null;
    int last = keys.size() - 1;
    for (int i = 0; i <= last; i++) {
      DescriptorNode.Child child = level.select(keys.get(i), values.get(i));
      if (child == null) {
        return null;
      }
      if (child.shareThreshold
          && child.patternParts != null
          && !child.value.equals(values.get(i))) {
        if (counted == null) {
          counted = new ArrayList<>(values);
        }
        counted.set(i, child.value);
      }
      if (i == last) {
        return child.rule == null
            ? null
            : new Match(child.rule, counted == null ? values : counted);
      }
      if (child.children.isEmpty()) {
        return null;
      }
      level = child.children;
    }
    return null;
  }
}
