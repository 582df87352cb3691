package io.slidingwindow.grpc;

import io.slidingwindow.Limit;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.HttpRule;
import java.util.ArrayList;
import java.util.List;

/**
 * Which calls a rule limits (full method names, with wildcards), under which key, by which limits,
 * and whether a streaming call counts once or per message.
 *
 * <p>A method pattern is a full method name, {@code package.Service/Method}, in which {@code *}
 * matches any run of characters and {@code ?} one character, never the {@code /} between service
 * and method: {@code helloworld.Greeter/SayHello}, {@code helloworld.Greeter/*}, {@code
 * helloworld.*}{@code /*}. The pattern {@code *} matches every method. A rule without patterns
 * matches every method too. Names are compared case-sensitively, as gRPC routes them.
 *
 * <p>By default a call takes one permit when it starts, whatever it streams. A rule {@link
 * Builder#perMessage() per message} takes one permit for each message the client sends instead (for
 * a unary or server-streaming call, its one request), and ends a stream with {@code
 * RESOURCE_EXHAUSTED} at the first message it refuses. Several limits are checked together; with
 * {@code countRefusedAttempts} refused calls count too; in dry-run the rule counts and reports but
 * never refuses.
 *
 * <p>The rule is an {@link HttpRule} underneath (its patterns become paths {@code
 * /package.Service/Method}, as gRPC sends them over HTTP/2), so that listeners, metrics and
 * backends see gRPC rules as they see every other rule. Instances are immutable and thread-safe.
 */
public final class GrpcRateLimitRule {

  private final HttpRule rule;
  private final List<String> methods;
  private final GrpcKeyResolver keyResolver;
  private final boolean perMessage;

  private GrpcRateLimitRule(Builder b) {
    this.rule = b.http.build();
    this.methods = List.copyOf(b.methods);
    this.keyResolver = b.keyResolver;
    this.perMessage = b.perMessage;
  }

  /**
   * Starts a rule named {@code name}; the name appears in metrics, logs and the {@code
   * ratelimit-policy} metadata, never in a refusal's description.
   *
   * @throws IllegalArgumentException if {@code name} is null, blank, or holds a character other
   *     than letters, digits, {@code - _ . :}
   */
  public static Builder builder(String name) {
    return new Builder(HttpRule.builder(name));
  }

  /** Whether this rule applies to the method {@code fullMethodName} ({@code package.Service/M}). */
  public boolean matches(String fullMethodName) {
    return rule.matches("POST", "/" + fullMethodName);
  }

  /** The rule as the enforcement, the listeners and the backends see it. */
  public HttpRule httpRule() {
    return rule;
  }

  /** The rule's name. */
  public String name() {
    return rule.name();
  }

  /** The method patterns; empty means every method. */
  public List<String> methods() {
    return methods;
  }

  /** The limits, all checked for every call (or message). */
  public List<Limit> limits() {
    return rule.limits();
  }

  /** The key resolver. */
  public GrpcKeyResolver keyResolver() {
    return keyResolver;
  }

  /** Whether each client message takes a permit, rather than each call. */
  public boolean perMessage() {
    return perMessage;
  }

  @Override
  public String toString() {
    return rule + (perMessage ? " per message" : "");
  }

  /** Builds a {@link GrpcRateLimitRule}. Not thread-safe. */
  public static final class Builder {
    private final HttpRule.Builder http;
    private final List<String> methods = new ArrayList<>();
    private GrpcKeyResolver keyResolver = GrpcKeyResolver.peerAddress(ClientAddresses.direct());
    private boolean perMessage;

    private Builder(HttpRule.Builder http) {
      this.http = http;
    }

    /**
     * Adds a method pattern: {@code *}, or {@code service/method} where each part is non-empty and
     * may hold {@code *} and {@code ?}.
     *
     * @throws IllegalArgumentException if {@code pattern} is not of that form
     */
    public Builder method(String pattern) {
      boolean valid =
          pattern != null
              && (pattern.equals("*")
                  || (pattern.matches("[^/{}\\s]+/[^/{}\\s]+") && !pattern.contains("**")));
      if (!valid) {
        throw new IllegalArgumentException(
            "method pattern must be '*' or 'package.Service/Method' (with * and ?), was '"
                + pattern
                + "'");
      }
      methods.add(pattern);
      http.path(pattern.equals("*") ? "/**" : "/" + pattern);
      return this;
    }

    /**
     * Sets the key resolver; by default the peer's address ({@link
     * GrpcKeyResolver#peerAddress(ClientAddresses)} trusting no proxy).
     *
     * @throws IllegalArgumentException if {@code keyResolver} is null
     */
    public Builder key(GrpcKeyResolver keyResolver) {
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
      http.limit(limit);
      return this;
    }

    /**
     * Adds a limit written {@code PERMITS/WINDOW}, such as {@code 5/10s} (see {@link
     * Limit#parse(String)}).
     *
     * @throws IllegalArgumentException if {@code limit} is not such a text
     */
    public Builder limit(String limit) {
      return limit(Limit.parse(limit));
    }

    /** Sets whether refused calls are counted too (penalty mode); off by default. */
    public Builder countRefusedAttempts(boolean countRefusedAttempts) {
      http.countRefusedAttempts(countRefusedAttempts);
      return this;
    }

    /** Sets dry-run: count and report, never refuse; off by default. */
    public Builder dryRun(boolean dryRun) {
      http.dryRun(dryRun);
      return this;
    }

    /** Takes a permit for each message the client sends, instead of one per call. */
    public Builder perMessage() {
      this.perMessage = true;
      return this;
    }

    /**
     * Builds the rule.
     *
     * @throws IllegalArgumentException if no limit was added
     */
    public GrpcRateLimitRule build() {
      return new GrpcRateLimitRule(this);
    }
  }
}
