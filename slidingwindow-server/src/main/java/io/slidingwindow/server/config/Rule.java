package io.slidingwindow.server.config;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import java.util.List;

/**
 * One configured limit: the {@code rate_limit} (and {@code rate_limits}) of one descriptor in a
 * domain's tree. Immutable; built by {@link ConfigParser}. Two rules are equal only if they are the
 * same object: {@link #identity()} says when a reloaded rule may keep an older one's counts.
 */
public final class Rule {

  /** What a rule does with the requests it matches. */
  public enum Kind {
    /** Counts them against its limits. */
    LIMITED,
    /** Allows them without counting ({@code unlimited: true}). */
    UNLIMITED,
    /** Refuses them ({@code requests_per_unit: 0}). */
    BLOCKED
  }

  private final String domain;
  private final String path;
  private final String selector;
  private final String source;
  private final Kind kind;
  private final List<Limit> limits;
  private final TimeUnitName blockedUnit;
  private final boolean shadowMode;
  private final String name;
  private final List<String> replaces;
  private final FailurePolicy failurePolicy;
  private final String[] sharedPatterns;
  private final int index;

  private Rule(Builder b, int index) {
    this.domain = b.domain;
    this.path = b.path;
    this.selector = b.selector;
    this.source = b.source;
    this.kind = b.kind;
    this.limits = List.copyOf(b.limits);
    this.blockedUnit = b.blockedUnit;
    this.shadowMode = b.shadowMode;
    this.name = b.name;
    this.replaces = List.copyOf(b.replaces);
    this.failurePolicy = b.failurePolicy;
    this.sharedPatterns = b.sharedPatterns.clone();
    this.index = index;
  }

  /** The domain it belongs to. */
  public String domain() {
    return domain;
  }

  /**
   * The descriptor path below the domain, as envoyproxy/ratelimit writes it, for example {@code
   * message_type_marketing.to_number}; a metric tag, bounded by the configuration.
   */
  public String path() {
    return path;
  }

  /**
   * The keys and values that select it, level by level, written so that no two rules of a domain
   * share it: each key and value length-prefixed ({@code 3:api=2:v1}, {@code 4:user-} for a key
   * without a value). Its {@link #path()} is not so: key {@code a_b} and key {@code a} with value
   * {@code b} both have path {@code a_b}. Counts are kept under this, never under the path.
   */
  public String selector() {
    return selector;
  }

  /** Where it is written, for example {@code limits.yaml line 12}. */
  public String source() {
    return source;
  }

  /** What it does with the requests it matches. */
  public Kind kind() {
    return kind;
  }

  /** The sliding windows every matching request must fit in; empty unless {@link Kind#LIMITED}. */
  public List<Limit> limits() {
    return limits;
  }

  /** For a {@link Kind#BLOCKED} rule, the unit to report; else {@link TimeUnitName#UNKNOWN}. */
  public TimeUnitName blockedUnit() {
    return blockedUnit;
  }

  /** Whether refusals are answered OK (they still are not counted). */
  public boolean shadowMode() {
    return shadowMode;
  }

  /** The name other rules can replace, or empty. */
  public String name() {
    return name;
  }

  /** The names of the rules this one replaces when both match one request. */
  public List<String> replaces() {
    return replaces;
  }

  /** What answers for this rule while the store that holds its counts (Redis) fails. */
  public FailurePolicy failurePolicy() {
    return failurePolicy;
  }

  /** The number of entries a descriptor that selects this rule has: its depth in the tree. */
  public int depth() {
    return sharedPatterns.length;
  }

  /**
   * The value a matching descriptor's entry {@code level} is counted under: the wildcard pattern
   * that selected it where that level has {@code share_threshold} (so that every value the pattern
   * matches shares one count), else {@code value} itself.
   */
  public String countedValue(int level, String value) {
    String shared = sharedPatterns[level];
    return shared == null ? value : shared;
  }

  /**
   * Whether entry {@code level} is counted under the wildcard pattern that selected it ({@code
   * share_threshold}), one count for every value it matches, the pattern's own spelling too.
   */
  public boolean sharesCountAt(int level) {
    return sharedPatterns[level] != null;
  }

  /** Its position among the rules of its configuration, from 0: an index for per-rule arrays. */
  public int index() {
    return index;
  }

  /**
   * What identifies the counts of this rule across reloads: a rule with the same domain, {@link
   * #selector()}, limits and failure policy keeps counting where the old one stopped (in memory,
   * where the policy has no effect, the counts are kept without it).
   */
  public Object identity() {
    return List.of(domain, selector, limits, failurePolicy);
  }

  @Override
  public String toString() {
    return "Rule[" + domain + " " + path + " " + kind + " " + limits + ", " + source + "]";
  }

  static Builder builder(String domain, String path, String selector, String source) {
    return new Builder(domain, path, selector, source);
  }

  /** Collects a rule's parts while the parser reads them. */
  static final class Builder {
    private final String domain;
    private final String path;
    private final String selector;
    private final String source;
    private Kind kind = Kind.LIMITED;
    private List<Limit> limits = List.of();
    private TimeUnitName blockedUnit = TimeUnitName.UNKNOWN;
    private boolean shadowMode;
    private String name = "";
    private List<String> replaces = List.of();
    private FailurePolicy failurePolicy = FailurePolicy.DEFAULT;
    private String[] sharedPatterns = new String[0];

    private Builder(String domain, String path, String selector, String source) {
      this.domain = domain;
      this.path = path;
      this.selector = selector;
      this.source = source;
    }

    Builder limits(List<Limit> limits) {
      this.limits = limits;
      return this;
    }

    Builder unlimited() {
      this.kind = Kind.UNLIMITED;
      this.limits = List.of();
      return this;
    }

    Builder blocked(TimeUnitName unit) {
      this.kind = Kind.BLOCKED;
      this.blockedUnit = unit;
      this.limits = List.of();
      return this;
    }

    Builder shadowMode(boolean shadowMode) {
      this.shadowMode = shadowMode;
      return this;
    }

    Builder name(String name, List<String> replaces) {
      this.name = name;
      this.replaces = replaces;
      return this;
    }

    Builder failurePolicy(FailurePolicy failurePolicy) {
      this.failurePolicy = failurePolicy;
      return this;
    }

    /** Per level of the rule's path, the pattern counted in place of values there, or null. */
    Builder sharedPatterns(String[] sharedPatterns) {
      this.sharedPatterns = sharedPatterns;
      return this;
    }

    Rule build(int index) {
      return new Rule(this, index);
    }
  }
}
