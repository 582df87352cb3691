package io.slidingwindow.servlet;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathPattern;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.ToLongFunction;

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
 * refused stays refused. In dry-run the rule counts and reports, but never refuses. A condition
 * limits the rule to the requests it holds for, and a cost function gives each request's permits
 * (see {@link io.slidingwindow.http.EnforcementCore.Builder#rule(HttpRule,
 * java.util.function.Function, Predicate, ToLongFunction)} for what becomes of a failing one, of
 * fewer permits than the rule's cost, and of more than a limit holds).
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class RateLimitRule {

  private final HttpRule rule;
  private final KeyResolver keyResolver;
  private final Predicate<? super HttpServletRequest> condition;
  private final ToLongFunction<? super HttpServletRequest> cost;

  private RateLimitRule(
      HttpRule rule,
      KeyResolver keyResolver,
      Predicate<? super HttpServletRequest> condition,
      ToLongFunction<? super HttpServletRequest> cost) {
    this.rule = rule;
    this.keyResolver = keyResolver;
    this.condition = condition;
    this.cost = cost;
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
    long permits = rule.cost();
    return new RateLimitRule(rule, keyResolver, request -> true, request -> permits);
  }

  /**
   * The rule of {@code rule} keyed by {@code keyResolver}, applied only where {@code condition}
   * holds, each request taking the permits {@code cost} gives.
   *
   * @throws IllegalArgumentException if an argument is null
   */
  public static RateLimitRule of(
      HttpRule rule,
      KeyResolver keyResolver,
      Predicate<? super HttpServletRequest> condition,
      ToLongFunction<? super HttpServletRequest> cost) {
    if (rule == null || keyResolver == null || condition == null || cost == null) {
      throw new IllegalArgumentException(
          "rule, keyResolver, condition and cost must not be null, were "
              + rule
              + ", "
              + keyResolver
              + ", "
              + condition
              + " and "
              + cost);
    }
    return new RateLimitRule(rule, keyResolver, condition, cost);
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

  /** Whether the rule applies to a request that matches its paths and methods. */
  public Predicate<? super HttpServletRequest> condition() {
    return condition;
  }

  /** The permits a request asks for; fewer than {@link HttpRule#cost()} take the rule's cost. */
  public ToLongFunction<? super HttpServletRequest> cost() {
    return cost;
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
    private Predicate<? super HttpServletRequest> condition = request -> true;
    private ToLongFunction<? super HttpServletRequest> cost;

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
     * Applies the rule only to the requests {@code condition} holds for; every request by default.
     *
     * @throws IllegalArgumentException if {@code condition} is null
     */
    public Builder condition(Predicate<? super HttpServletRequest> condition) {
      if (condition == null) {
        throw new IllegalArgumentException("condition must not be null");
      }
      this.condition = condition;
      return this;
    }

    /**
     * Sets the permits each request takes, and the fewest it takes with a cost function; 1 by
     * default.
     *
     * @throws IllegalArgumentException if {@code permits} is not positive
     */
    public Builder cost(long permits) {
      rule.cost(permits);
      return this;
    }

    /**
     * Sets the function that gives the permits a request asks for; fewer than {@link #cost(long)}
     * take that cost.
     *
     * @throws IllegalArgumentException if {@code cost} is null
     */
    public Builder cost(ToLongFunction<? super HttpServletRequest> cost) {
      if (cost == null) {
        throw new IllegalArgumentException("cost must not be null");
      }
      this.cost = cost;
      return this;
    }

    /**
     * Builds the rule.
     *
     * @throws IllegalArgumentException if no limit was added
     */
    public RateLimitRule build() {
      HttpRule built = rule.build();
      long permits = built.cost();
      return new RateLimitRule(
          built,
          keyResolver != null ? keyResolver : KeyResolver.clientIp(ClientIpResolver.direct()),
          condition,
          cost != null ? cost : request -> permits);
    }
  }
}
