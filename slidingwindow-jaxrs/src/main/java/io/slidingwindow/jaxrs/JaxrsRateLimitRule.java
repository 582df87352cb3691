package io.slidingwindow.jaxrs;

import io.slidingwindow.Limit;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathPattern;

/**
 * Which requests a rule limits (path patterns and methods), under which key, and by which limits:
 * an {@link HttpRule} with a {@link JaxrsKeyResolver}, as the servlet filter's rules are. Paths are
 * matched within the application (below the JAX-RS base URI), against every reading of the
 * request's path. Instances are immutable and thread-safe.
 */
public final class JaxrsRateLimitRule {

  private final HttpRule rule;
  private final JaxrsKeyResolver keyResolver;

  private JaxrsRateLimitRule(HttpRule rule, JaxrsKeyResolver keyResolver) {
    this.rule = rule;
    this.keyResolver = keyResolver;
  }

  /**
   * Starts a rule named {@code name}; the name appears in metrics, logs and the {@code
   * RateLimit-Policy} header, never in a response body.
   *
   * @throws IllegalArgumentException if {@code name} is null, blank, or holds a character other
   *     than letters, digits, {@code - _ . :}
   */
  public static Builder builder(String name) {
    return new Builder(HttpRule.builder(name));
  }

  /**
   * The rule of {@code rule} keyed by {@code keyResolver}.
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public static JaxrsRateLimitRule of(HttpRule rule, JaxrsKeyResolver keyResolver) {
    if (rule == null || keyResolver == null) {
      throw new IllegalArgumentException(
          "rule and keyResolver must not be null, were " + rule + " and " + keyResolver);
    }
    return new JaxrsRateLimitRule(rule, keyResolver);
  }

  /** The server-neutral part of this rule: everything but the key resolver. */
  public HttpRule httpRule() {
    return rule;
  }

  /** The rule's name. */
  public String name() {
    return rule.name();
  }

  /** The key resolver. */
  public JaxrsKeyResolver keyResolver() {
    return keyResolver;
  }

  @Override
  public String toString() {
    return rule.toString();
  }

  /** Builds a {@link JaxrsRateLimitRule}. Not thread-safe. */
  public static final class Builder {
    private final HttpRule.Builder rule;
    private JaxrsKeyResolver keyResolver;

    private Builder(HttpRule.Builder rule) {
      this.rule = rule;
    }

    /**
     * Adds a path pattern (see {@link PathPattern}), within the application.
     *
     * @throws IllegalArgumentException if the pattern is invalid
     */
    public Builder path(String pattern) {
      rule.path(pattern);
      return this;
    }

    /**
     * Adds HTTP methods, case-insensitive; {@code GET} includes {@code HEAD}.
     *
     * @throws IllegalArgumentException if a method is null or not a token of letters
     */
    public Builder methods(String... methods) {
      rule.methods(methods);
      return this;
    }

    /**
     * Sets the key resolver; by default the peer address ({@link
     * JaxrsKeyResolver#clientAddress(ClientAddresses)} trusting no proxy).
     *
     * @throws IllegalArgumentException if {@code keyResolver} is null
     */
    public Builder key(JaxrsKeyResolver keyResolver) {
      if (keyResolver == null) {
        throw new IllegalArgumentException("keyResolver must not be null");
      }
      this.keyResolver = keyResolver;
      return this;
    }

    /**
     * Adds a limit.
     *
     * @throws IllegalArgumentException if {@code limit} is null
     */
    public Builder limit(Limit limit) {
      rule.limit(limit);
      return this;
    }

    /**
     * Adds a limit written {@code PERMITS/WINDOW}, such as {@code 5/10s}.
     *
     * @throws IllegalArgumentException if {@code limit} is not such a text
     */
    public Builder limit(String limit) {
      return limit(Limit.parse(limit));
    }

    /** Sets whether refused requests are counted too (penalty mode); off by default. */
    public Builder countRefusedAttempts(boolean countRefusedAttempts) {
      rule.countRefusedAttempts(countRefusedAttempts);
      return this;
    }

    /** Sets dry-run: count and report, never refuse; off by default. */
    public Builder dryRun(boolean dryRun) {
      rule.dryRun(dryRun);
      return this;
    }

    /**
     * Builds the rule.
     *
     * @throws IllegalArgumentException if no limit was added
     */
    public JaxrsRateLimitRule build() {
      return new JaxrsRateLimitRule(
          rule.build(),
          keyResolver != null
              ? keyResolver
              : JaxrsKeyResolver.clientAddress(ClientAddresses.direct()));
    }
  }
}
