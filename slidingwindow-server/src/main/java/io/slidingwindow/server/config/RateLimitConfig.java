package io.slidingwindow.server.config;

import io.slidingwindow.FailurePolicy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

/**
 * A loaded configuration: the descriptor tree of every domain, and its rules (each knows its {@link
 * Rule#index()} in {@link #rules()}). Immutable once built, so it is safe to share between threads.
 */
public final class RateLimitConfig {

  private final Map<String, DescriptorNode> domains;
  private final Map<String, FailurePolicy> failurePolicies;
  private final List<Rule> rules;

  RateLimitConfig(
      Map<String, DescriptorNode> domains,
      Map<String, FailurePolicy> failurePolicies,
      List<Rule> rules) {
    this.domains = Map.copyOf(domains);
    this.failurePolicies = Map.copyOf(failurePolicies);
    this.rules = List.copyOf(rules);
  }

  /** The {@code failure_policy} of {@code domain}, or the default for a domain not configured. */
  public FailurePolicy failurePolicy(String domain) {
    return failurePolicies.getOrDefault(domain, FailurePolicy.DEFAULT);
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
   * The rule that descriptor {@code d} of {@code request} selects in {@code domain}, as
   * envoyproxy/ratelimit selects it: entry {@code i} is looked up among the children selected by
   * entry {@code i - 1} (see {@link DescriptorNode#select}), and only a rule at the level of the
   * last entry applies, so a descriptor with more or fewer entries than the configured nesting
   * matches nothing. Allocates nothing.
   *
   * @return the rule, or null if none applies (or the domain is unknown)
   */
  public Rule match(String domain, Descriptors request, int d) {
    DescriptorNode level = domains.get(domain);
    if (level == null) {
      return null;
    }
    int last = request.entries(d) - 1;
    for (int i = 0; i <= last; i++) {
      DescriptorNode.Child child = level.select(request.key(d, i), request.value(d, i));
      if (child == null) {
        return null;
      }
      if (i == last) {
        return child.rule;
      }
      if (child.children.isEmpty()) {
        return null;
      }
      level = child.children;
    }
    return null;
  }
}
