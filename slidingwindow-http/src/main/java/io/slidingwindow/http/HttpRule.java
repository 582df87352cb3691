package io.slidingwindow.http;

import io.slidingwindow.Limit;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * What an HTTP rule limits and how, on any server: its name, the requests it applies to (path
 * patterns and methods), its limits, whether refused requests count, and dry-run. Where a rule's
 * key comes from depends on the server API, so each adapter takes an {@code HttpRule} with a key
 * resolver of its own (the servlet {@code RateLimitEnforcer}, the JAX-RS and reactive filters).
 *
 * <p>A request matches when its path matches one of the patterns (or the rule has none) and its
 * method is one of the methods (or the rule has none). Patterns match case-sensitively, or
 * regardless of case if the rule {@linkplain Builder#ignoreCase(boolean) ignores case}, as it must
 * when the application's handlers do. {@code HEAD} counts as {@code GET}: a rule that lists {@code
 * GET} limits {@code HEAD} too, since servers answer it with the GET handler. Several limits are
 * checked together: a request is granted only if every limit allows it. With {@code
 * countRefusedAttempts} a refused request is counted too, so a client that keeps calling while
 * refused stays refused. In dry-run the rule counts and reports, but never refuses.
 *
 * <p>With {@link #countStatuses()} a request counts only if its answer's status is one of them
 * (failed logins: {@code 400-599}): each request reserves its permits before it runs, refused when
 * they do not fit exactly as any other, and the server adapter gives them back once the answer's
 * status turns out to be another (see {@link Settlement}). A request in flight counts, so that
 * concurrent requests never pass more than the limits together.
 *
 * <p>Instances are immutable and thread-safe.
 */
public final class HttpRule {

  /**
   * The start of the rule name of every Spring Cloud Gateway route ({@code gateway.<route id>}),
   * which no other rule's name may have.
   */
  private static final String GATEWAY_PREFIX = "gateway.";

  private final String name;
  private final List<PathPattern> paths;
  private final boolean ignoreCase;
  private final Set<String> methods;
  private final List<Limit> limits;
  private final boolean countRefusedAttempts;
  private final boolean dryRun;
  private final long cost;
  private final String declaredOn;
  private final StatusRanges countStatuses;

  private HttpRule(Builder b) {
    this.name = b.name;
    this.paths =
        b.ignoreCase
            ? b.paths.stream().map(PathPattern::ignoringCase).toList()
            : List.copyOf(b.paths);
    this.ignoreCase = b.ignoreCase;
    this.methods = Set.copyOf(b.methods);
    this.limits = List.copyOf(b.limits);
    this.countRefusedAttempts = b.countRefusedAttempts;
    this.dryRun = b.dryRun;
    this.cost = b.cost;
    this.declaredOn = b.declaredOn;
    this.countStatuses = b.countStatuses;
  }

  /**
   * Starts a rule named {@code name}; the name appears in metrics, logs and the {@code
   * RateLimit-Policy} header, never in a response body.
   *
   * <p>Names that start with {@code gateway.} are the Spring Cloud Gateway's: the rule of route
   * {@code x} is {@code gateway.x}. No other rule may take one, so that a rule never shares a name,
   * nor the windows a shared backend keeps under it, with a route.
   *
   * @throws IllegalArgumentException if {@code name} is null, blank, holds a character other than
   *     letters, digits, {@code - _ . :}, or starts with {@code gateway.}
   */
  public static Builder builder(String name) {
    if (name == null || !name.matches("[A-Za-z0-9._:-]+")) {
      throw new IllegalArgumentException(
          "name must be non-empty letters, digits, '-', '_', '.' or ':', was '" + name + "'");
    }
    if (name.startsWith(GATEWAY_PREFIX)) {
      throw new IllegalArgumentException(
          "name must not start with '"
              + GATEWAY_PREFIX
              + "', which names the rules of Spring Cloud Gateway routes, was '"
              + name
              + "'");
    }
    return new Builder(name);
  }

  /** Whether this rule applies to a request with this method and path. */
  public boolean matches(String method, String path) {
    if (!methods.isEmpty() && !matchesMethod(method)) {
      return false;
    }
    if (paths.isEmpty()) {
      return true;
    }
    for (PathPattern pattern : paths) {
      if (pattern.matches(path)) {
        return true;
      }
    }
    return false;
  }

  private boolean matchesMethod(String method) {
    if (method == null) {
      return false;
    }
    String upper = method.toUpperCase(Locale.ROOT);
    return methods.contains(upper) || (upper.equals("HEAD") && methods.contains("GET"));
  }

  /** The rule's name. */
  public String name() {
    return name;
  }

  /** The path patterns; empty means every path. */
  public List<PathPattern> paths() {
    return paths;
  }

  /** Whether the path patterns match regardless of case. */
  public boolean ignoreCase() {
    return ignoreCase;
  }

  /** The upper-case methods; empty means every method. */
  public Set<String> methods() {
    return methods;
  }

  /** The limits, all checked for every request. */
  public List<Limit> limits() {
    return limits;
  }

  /** Whether refused requests are counted as if granted (penalty mode). */
  public boolean countRefusedAttempts() {
    return countRefusedAttempts;
  }

  /** Whether this rule only counts and reports, never refusing. */
  public boolean dryRun() {
    return dryRun;
  }

  /**
   * The permits each request takes, 1 by default; also the fewest a request takes when a
   * per-request cost asks fewer (see {@link EnforcementCore.Builder#rule(HttpRule,
   * java.util.function.Function, java.util.function.Predicate,
   * java.util.function.ToLongFunction)}).
   */
  public long cost() {
    return cost;
  }

  /**
   * The handler this rule belongs to, for a rule that limits one handler (such as {@code
   * "@RateLimit on com.example.Api.order(String)"}), whatever path reaches it; null for a rule that
   * limits by its paths.
   */
  public String declaredOn() {
    return declaredOn;
  }

  /**
   * The statuses of the answers this rule counts, or null if it counts every request it lets
   * through (the default).
   */
  public StatusRanges countStatuses() {
    return countStatuses;
  }

  /**
   * The first limit that can never grant {@code permits} at once (its permits are fewer), if any.
   */
  Optional<Limit> limitBelow(long permits) {
    for (Limit limit : limits) {
      if (limit.permits() < permits) {
        return Optional.of(limit);
      }
    }
    return Optional.empty();
  }

  @Override
  public String toString() {
    return "HttpRule["
        + name
        + " "
        + paths
        + (ignoreCase ? " ignoring case" : "")
        + " "
        + methods
        + " "
        + limits
        + (countRefusedAttempts ? " counting refused" : "")
        + (dryRun ? " dry-run" : "")
        + (cost != 1 ? " cost " + cost : "")
        + (countStatuses != null ? " counting statuses " + countStatuses : "")
        + "]";
  }

  /** Builds an {@link HttpRule}. Not thread-safe. */
  public static final class Builder {
    private final String name;
    private final List<PathPattern> paths = new ArrayList<>();
    private boolean ignoreCase;
    private final Set<String> methods = new LinkedHashSet<>();
    private final List<Limit> limits = new ArrayList<>();
    private boolean countRefusedAttempts;
    private boolean dryRun;
    private long cost = 1;
    private String declaredOn;
    private StatusRanges countStatuses;

    private Builder(String name) {
      this.name = name;
    }

    /** The name given to {@link HttpRule#builder(String)}. */
    public String name() {
      return name;
    }

    /**
     * Adds a path pattern (see {@link PathPattern}).
     *
     * @throws IllegalArgumentException if the pattern is invalid
     */
    public Builder path(String pattern) {
      paths.add(PathPattern.of(pattern));
      return this;
    }

    /**
     * Sets whether the path patterns, those added before and after, match regardless of case (see
     * {@link PathPattern#ignoringCase()}); off by default. Turn it on when the application's
     * handlers match paths regardless of case, or a request spelled {@code /V1/ADMIN} reaches the
     * handler of {@code /v1/admin} without this rule counting it.
     */
    public Builder ignoreCase(boolean ignoreCase) {
      this.ignoreCase = ignoreCase;
      return this;
    }

    /**
     * Adds HTTP methods, case-insensitive; {@code GET} includes {@code HEAD}.
     *
     * @throws IllegalArgumentException if a method is null or not a token of letters
     */
    public Builder methods(String... methods) {
      for (String method : methods) {
        if (method == null || !method.matches("[A-Za-z]+")) {
          throw new IllegalArgumentException("method must be letters, was '" + method + "'");
        }
        this.methods.add(method.toUpperCase(Locale.ROOT));
      }
      return this;
    }

    /**
     * Adds a limit.
     *
     * @throws IllegalArgumentException if {@code limit} is null
     */
    public Builder limit(Limit limit) {
      if (limit == null) {
        throw new IllegalArgumentException("limit must not be null");
      }
      limits.add(limit);
      return this;
    }

    /** Sets whether refused requests are counted too (penalty mode); off by default. */
    public Builder countRefusedAttempts(boolean countRefusedAttempts) {
      this.countRefusedAttempts = countRefusedAttempts;
      return this;
    }

    /** Sets dry-run: count and report, never refuse; off by default. */
    public Builder dryRun(boolean dryRun) {
      this.dryRun = dryRun;
      return this;
    }

    /**
     * Sets the permits each request takes, 1 by default.
     *
     * @throws IllegalArgumentException if {@code permits} is not positive
     */
    public Builder cost(long permits) {
      if (permits < 1) {
        throw new IllegalArgumentException("cost must be positive, was " + permits);
      }
      this.cost = permits;
      return this;
    }

    /**
     * Sets the handler this rule belongs to (see {@link HttpRule#declaredOn()}); none by default.
     *
     * @throws IllegalArgumentException if {@code handler} is null or blank
     */
    public Builder declaredOn(String handler) {
      if (handler == null || handler.isBlank()) {
        throw new IllegalArgumentException("handler must not be blank, was '" + handler + "'");
      }
      this.declaredOn = handler;
      return this;
    }

    /**
     * Counts a request only if its answer's status is one of {@code statuses}: reserved before it
     * runs, given back after (see {@link HttpRule#countStatuses()}); null, the default, counts
     * every request let through.
     */
    public Builder countStatuses(StatusRanges statuses) {
      this.countStatuses = statuses;
      return this;
    }

    /**
     * Builds the rule.
     *
     * @throws IllegalArgumentException if no limit was added, the cost exceeds a limit's permits,
     *     or count statuses are set together with counting refused attempts (whose limiters cannot
     *     give permits back)
     */
    public HttpRule build() {
      if (limits.isEmpty()) {
        throw new IllegalArgumentException("limits: rule '" + name + "' needs at least one limit");
      }
      if (countStatuses != null && countRefusedAttempts) {
        throw new IllegalArgumentException(
            "countStatuses: rule '"
                + name
                + "' counts refused attempts, whose limiter cannot give permits back; counting"
                + " only some statuses needs that, was "
                + countStatuses);
      }
      for (Limit limit : limits) {
        if (limit.permits() < cost) {
          throw new IllegalArgumentException(
              "cost must be at most every limit's permits, was "
                  + cost
                  + " with a limit of "
                  + limit.permits());
        }
      }
      return new HttpRule(this);
    }
  }
}
