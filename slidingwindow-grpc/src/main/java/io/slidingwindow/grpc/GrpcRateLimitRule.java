package io.slidingwindow.grpc;

import io.grpc.Status;
import io.slidingwindow.Limit;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.StatusRanges;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

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
 * RESOURCE_EXHAUSTED} at the first message it refuses. The permit of a call's first message is
 * taken when the call starts, before its handler does: a stream that sends no message still takes
 * one, and one refused there never reaches its handler. Several limits are checked together; with
 * {@code countRefusedAttempts} refused calls count too; in dry-run the rule counts and reports but
 * never refuses.
 *
 * <p>With {@link Builder#countCodes(Status.Code...)} a call counts only if the server closes it
 * with one of those codes (failed logins: {@code UNAUTHENTICATED}): each call reserves its permit
 * before its handler starts, refused with {@code RESOURCE_EXHAUSTED} when it does not fit exactly
 * as any other, and gets it back once the call closes with another code. A call in flight counts,
 * so that concurrent calls never pass more than the limits together; a call the client cancelled
 * (or whose deadline passed) keeps its count, also if the handler closes it after, and so does one
 * the interceptor ends after its handler started (a later message refused by a per-message rule).
 *
 * <p>The rule is an {@link HttpRule} underneath (its patterns become paths {@code
 * /package.Service/Method}, as gRPC sends them over HTTP/2; its codes become the statuses {@code
 * 100 + code}, in the 1xx range that no HTTP answer ends with), so that listeners, metrics and
 * backends see gRPC rules as they see every other rule. Instances are immutable and thread-safe.
 */
public final class GrpcRateLimitRule {

  private final HttpRule rule;
  private final List<String> methods;
  private final GrpcKeyResolver keyResolver;
  private final boolean perMessage;
  private final Set<Status.Code> countCodes;

  private GrpcRateLimitRule(Builder b) {
    this.countCodes =
        b.countCodes == null ? Set.of() : Collections.unmodifiableSet(EnumSet.copyOf(b.countCodes));
    this.rule = b.http.build();
    this.methods = List.copyOf(b.methods);
    this.keyResolver = b.keyResolver;
    this.perMessage = b.perMessage;
  }

  /** The status a call closed with {@code code} is settled with: {@code 100 + code}. */
  static int statusOf(Status.Code code) {
    return 100 + code.value();
  }

  /**
   * Starts a rule named {@code name}; the name appears in metrics, logs and the {@code
   * ratelimit-policy} metadata, never in a refusal's description.
   *
   * @throws IllegalArgumentException if {@code name} is null, blank, holds a character other than
   *     letters, digits, {@code - _ . :}, or starts with {@code gateway.} (the Spring Cloud Gateway
   *     routes' names, see {@link HttpRule#builder})
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

  /**
   * The codes a call must close with to count (see {@link Builder#countCodes(Status.Code...)});
   * empty if every call let through counts, the default.
   */
  public Set<Status.Code> countCodes() {
    return countCodes;
  }

  @Override
  public String toString() {
    return rule
        + (perMessage ? " per message" : "")
        + (countCodes.isEmpty() ? "" : " counting codes " + countCodes);
  }

  /** Builds a {@link GrpcRateLimitRule}. Not thread-safe. */
  public static final class Builder {
    private final HttpRule.Builder http;
    private final List<String> methods = new ArrayList<>();
    private GrpcKeyResolver keyResolver = GrpcKeyResolver.peerAddress(ClientAddresses.direct());
    private boolean perMessage;
    private EnumSet<Status.Code> countCodes;
    private boolean countRefusedAttempts;

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
      this.countRefusedAttempts = countRefusedAttempts;
      http.countRefusedAttempts(countRefusedAttempts);
      return this;
    }

    /** Sets dry-run: count and report, never refuse; off by default. */
    public Builder dryRun(boolean dryRun) {
      http.dryRun(dryRun);
      return this;
    }

    /**
     * Takes a permit for each message the client sends, instead of one per call; the first
     * message's permit when the call starts, so that a call that sends none still takes one.
     */
    public Builder perMessage() {
      this.perMessage = true;
      return this;
    }

    /**
     * Counts a call only if the server closes it with one of {@code codes}, such as {@code
     * UNAUTHENTICATED} for failed logins: the call reserves its permit before its handler starts
     * and gets it back when it closes with another code (see {@link GrpcRateLimitRule}). The code
     * is the one the call is closed with as it passes the interceptor: the handler's (or that of an
     * interceptor between them, also one it throws when it starts the call), {@code UNKNOWN} for a
     * handler that throws, {@code RESOURCE_EXHAUSTED} for a refusal before the handler starts;
     * never anything the client sends. A call that the interceptor itself ends after its handler
     * started (a {@linkplain #perMessage() per-message} rule refusing a later message of a stream,
     * or deciding it failing) keeps its permit whatever the codes: the handler may have answered
     * the messages it saw (a wrong password each), and the code it would have closed the call with
     * is never known. Calling it again replaces the codes.
     *
     * @throws IllegalArgumentException naming the rule if {@code codes} is null, empty or holds
     *     null
     */
    public Builder countCodes(Status.Code... codes) {
      if (codes == null || codes.length == 0 || Arrays.asList(codes).contains(null)) {
        throw new IllegalArgumentException(
            "countCodes: rule '"
                + http.name()
                + "' must list at least one code and no null, such as UNAUTHENTICATED, was "
                + (codes == null ? null : Arrays.toString(codes)));
      }
      this.countCodes = EnumSet.copyOf(Arrays.asList(codes));
      return this;
    }

    /**
     * Builds the rule.
     *
     * @throws IllegalArgumentException if no limit was added, or codes to count are set together
     *     with {@link #perMessage()} (a call's code settles the call, not each message) or with
     *     counting refused attempts (whose limiters cannot give permits back)
     */
    public GrpcRateLimitRule build() {
      String conflict =
          perMessage
              ? "counts per message, but the code a call closes with settles the whole call;"
                  + " count per call to count by codes"
              : countRefusedAttempts
                  ? "counts refused attempts, whose limiter cannot give permits back; counting"
                      + " only some codes needs that"
                  : null;
      if (countCodes != null && conflict != null) {
        throw new IllegalArgumentException(
            "countCodes: rule '" + http.name() + "' " + conflict + ", was " + countCodes);
      }
      http.countStatuses(
          countCodes == null
              ? null
              : StatusRanges.parse(
                  countCodes.stream().map(code -> Integer.toString(statusOf(code))).toList()));
      return new GrpcRateLimitRule(this);
    }
  }
}
