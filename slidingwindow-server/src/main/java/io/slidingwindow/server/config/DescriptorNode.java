package io.slidingwindow.server.config;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One level of a domain's descriptor tree: the entries configured below a descriptor (or below the
 * domain), with the rule of each. Built by {@link ConfigParser}, then only read, so it is safe to
 * share between threads once published.
 */
final class DescriptorNode {

  /** A configured child: its key, its value or pattern (null if none), its rule and subtree. */
  static final class Child {
    final String key;
    final String value;
    final String[] patternParts;
    final boolean shareThreshold;
    final Rule rule;
    final DescriptorNode children;

    Child(String key, String value, boolean shareThreshold, Rule rule, DescriptorNode children) {
      this.key = key;
      this.value = value;
      this.patternParts = value != null && value.contains("*") ? value.split("\\*", -1) : null;
      this.shareThreshold = shareThreshold;
      this.rule = rule;
      this.children = children;
    }

    boolean matchesPattern(String candidate) {
      return WildcardMatch.matches(patternParts, candidate);
    }
  }

  /** Children with a value (or pattern), by key, then by value. */
  private final Map<String, Map<String, Child>> exact = new HashMap<>();

  private final Map<String, Child> byKeyOnly = new HashMap<>();
  private final List<Child> wildcards = new ArrayList<>();

  /** Adds {@code child}; false if a child with the same key and value exists. */
  boolean add(Child child) {
    if (child.value == null) {
      return byKeyOnly.putIfAbsent(child.key, child) == null;
    }
    if (exact.computeIfAbsent(child.key, k -> new HashMap<>()).putIfAbsent(child.value, child)
        != null) {
      return false;
    }
    if (child.patternParts != null) {
      wildcards.add(child);
    }
    return true;
  }

  boolean isEmpty() {
    return exact.isEmpty() && byKeyOnly.isEmpty();
  }

  /**
   * The child the entry {@code (key, value)} selects: the child with exactly this key and value,
   * else the first wildcard child of this key whose pattern matches the value, else the child with
   * this key and no value; null if none. A value spelt like a pattern is matched by the patterns in
   * order, as every other value they match, never by its spelling: else a client could send the
   * spelling of a pattern listed after another that matches it, and reach a rule that no other
   * value reaches (envoyproxy/ratelimit looks the spelling up first).
   */
  Child select(String key, String value) {
    Map<String, Child> byValue = exact.get(key);
    Child child = byValue == null ? null : byValue.get(value);
    if (child != null && child.patternParts == null) {
      return child;
    }
    for (int i = 0; i < wildcards.size(); i++) { // indexed: no iterator per call
      Child wildcard = wildcards.get(i);
      if (wildcard.key.equals(key) && wildcard.matchesPattern(value)) {
        return wildcard;
      }
    }
    return byKeyOnly.get(key);
  }
}
