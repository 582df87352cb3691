package io.slidingwindow.servlet;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathPattern;
import java.util.List;
import java.util.Set;

/**
 * Which requests a rule limits (path patterns and methods), under which key, and by which limits:
 * an {@link HttpRule} with a servlet {@link KeyResolver}.
 *
 * <p>A request matches when its path matches one of the patterns (or the rule has none) and its
 * method is one of the methods (or the rule has none). {@code HEAD} counts as {@code GET}: a rule
 * that lists {@code GET} limits {@code HEAD} too, since a container answers it with the GET
 * handler. Several limits are checked together: a request is granted only if every limit allows it
 * (per-URL windows such as 500 per 2 s, 2000 per 10 s and 10000 per 60 s). With {@code
 * countRefusedAttempts} a refused request is counted too, so a client that keeps calling while
 * refused stays refused. In dry-run the rule counts and reports, but never refuses.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class RateLimitRule {

  private final HttpRule rule;
  private final KeyResolver keyResolver;

  private RateLimitRule(HttpRule rule, KeyResolver keyResolver) {
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
  public static RateLimitRule of(HttpRule rule, KeyResolver keyResolver) {
    if (rule == null || keyResolver == null) {
      throw new IllegalArgumentException(
          "rule and keyResolver must not be null, were " + rule + " and " + keyResolver);
    }
    return new RateLimitRule(rule, keyResolver);
  }

  /** Whether this rule applies to a request with this method and path. */
  public boolean matches(String method, String path) {
    return rule.matches(method, path);
  }

  /** The server-neutral part of this rule: everything but the key resolver. */
  public HttpRule httpRule() {
    return rule;
  }

  /** The rule's name. */
  public String name() {
    return rule.name();
  }

  /** The path patterns; empty means every path. */
  public List<PathPattern> paths() {
    return rule.paths();
  }

  /** The upper-case methods; empty means every method. */
  public Set<String> methods() {
    return rule.methods();
  }

  /** The key resolver. */
  public KeyResolver keyResolver() {
    return keyResolver;
  }

  /** The limits, all checked for every request. */
  public List<Limit> limits() {
    return rule.limits();
  }

  /** Whether refused requests are counted as if granted (penalty mode). */
  public boolean countRefusedAttempts() {
    return rule.countRefusedAttempts();
  }

  /** Whether this rule only counts and reports, never refusing. */
  public boolean dryRun() {
    return rule.dryRun();
  }

  @Override
  public String toString() {
    return rule.toString();
  }

  /** Builds a {@link RateLimitRule}. Not thread-safe. */
  public static final class Builder {
    private final HttpRule.Builder rule;
    private KeyResolver keyResolver;

    private Builder(HttpRule.Builder rule) {
      this.rule = rule;
    }

    /**
     * Adds a path pattern (see {@link PathPattern}).
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
     * Sets the key resolver; by default the connection's remote address.
     *
     * @throws IllegalArgumentException if {@code keyResolver} is null
     */
    public Builder key(KeyResolver keyResolver) {
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
    public RateLimitRule build() {
      return new RateLimitRule(
          rule.build(),
          keyResolver != null ? keyResolver : KeyResolver.clientIp(ClientIpResolver.direct()));
    }
  }
}
