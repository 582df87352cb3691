package io.slidingwindow.http;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The draft-10 headers of one request ({@code RateLimit-Policy}, {@code RateLimit}) and its {@code
 * Retry-After}, assembled from the decisions of the rules that decided it, free of any server API.
 *
 * <p>Each decision adds its rule's limits to {@code RateLimit-Policy} ({@code
 * "name";q=permits;w=seconds}) and its binding limit to {@code RateLimit} ({@code
 * "name";r=remaining;t=seconds}); a decision on a key on a plan adds the plan's binding limit
 * alone, named by the rule ({@link #addOnPlan}), whether or not the rule has a limit equal to it;
 * {@code t} is the exact wait of a refusal, or for a grant the time until every permit the limit
 * counts has left, in whole seconds rounded up. A grant by an enforcing rule that left its binding
 * limit without a permit raises the {@code Retry-After} of a later refusal to a bound on when that
 * rule grants again, so that {@code Retry-After} is never early for any rule that charged the
 * request. On a refusal an item whose {@code t} would exceed {@code Retry-After} leaves {@code t}
 * out.
 *
 * <p>Public for the project's server adapters (the servlet filter, the reactive filter, the gateway
 * limiter); applications have no need of it.
 *
 * <p>One instance per request; not thread-safe.
 */
public final class QuotaHeaders {

  /** The response header that tells how many seconds to wait. */
  public static final String RETRY_AFTER = "Retry-After";

  /** The draft-10 header that describes each quota policy. */
  public static final String RATE_LIMIT_POLICY = "RateLimit-Policy";

  /** The draft-10 header that reports the state of each policy for this request. */
  public static final String RATE_LIMIT = "RateLimit";

  private final List<String> policies = new ArrayList<>();
  private final List<String> items = new ArrayList<>();
  private final List<Long> itemSeconds = new ArrayList<>();
  private long retryNotBeforeNanos;

  /**
   * Adds the header items of one rule's decision on a key on no plan: every limit of the rule, and
   * the decision's limit as its binding one. A decision whose limit is none of {@code limits} is
   * told alone, named by the first policy name.
   *
   * @param limits the rule's limits
   * @param policyNames the policy name of each limit, as {@link #policyNames} gives them
   * @param decision the rule's decision, whose limit is one of {@code limits}
   */
  public void add(List<Limit> limits, List<String> policyNames, Decision decision) {
    if (!limits.contains(decision.limit())) {
      addOnPlan(policyNames.get(0), decision);
      return;
    }
    for (int i = 0; i < limits.size(); i++) {
      policy(policyNames.get(i), limits.get(i));
    }
    item(policyNames.get(limits.indexOf(decision.limit())), decision);
  }

  /**
   * Adds the header items of one rule's decision on a key on a plan, which the plan's limits
   * decide, not the rule's: the policy told is the decision's limit (the plan's binding limit)
   * alone, named {@code ruleName}, so that a client is never told the rule's default quota or
   * another plan's, whatever limits they share.
   *
   * @param ruleName the rule's name
   * @param decision the rule's decision on the key, by its plan's limits
   */
  public void addOnPlan(String ruleName, Decision decision) {
    policy(ruleName, decision.limit());
    item(ruleName, decision);
  }

  private void policy(String name, Limit limit) {
    policies.add(
        '"' + name + "\";q=" + limit.permits() + ";w=" + wholeSeconds(limit.windowNanos()));
  }

  private void item(String name, Decision decision) {
    items.add('"' + name + "\";r=" + (decision.allowed() ? decision.remaining() : 0));
    itemSeconds.add(
        retryAfterSecondsOf(decision.allowed() ? decision.resetAfter() : decision.retryAfter()));
  }

  /**
   * Notes a grant by an enforcing rule with {@code limits}, the limits that decided the key (its
   * plan's for a key on a plan): if it left the binding limit without a permit, a later refusal's
   * {@code Retry-After} is at least {@link #nextPermitBoundNanos}.
   */
  public void granted(List<Limit> limits, Decision grant) {
    if (grant.remaining() < 1) {
      retryNotBeforeNanos = Math.max(retryNotBeforeNanos, nextPermitBoundNanos(limits, grant));
    }
  }

  /**
   * The {@code Retry-After} of a refusal with {@code retryAfter}, in whole seconds rounded up: the
   * refusing rule's wait, raised to the bound of every grant noted so far that left no permit.
   */
  public long retryAfterSeconds(Duration retryAfter) {
    return retryAfterSecondsOf(
        Duration.ofNanos(Math.max(retryAfter.toNanos(), retryNotBeforeNanos)));
  }

  /**
   * The two draft-10 headers of a request let through, from every item so far, in order; empty if
   * there is none.
   */
  public Map<String, String> headers() {
    return render(Long.MAX_VALUE);
  }

  /**
   * The two draft-10 headers of a refused request, from every item so far, in order; empty if there
   * is none. Its {@code Retry-After} caps each {@code t}: an item whose {@code t} would exceed it
   * leaves {@code t} out.
   *
   * @param retryAfterSeconds the refusal's {@code Retry-After}, in whole seconds
   * @throws IllegalArgumentException if {@code retryAfterSeconds} is negative
   */
  public Map<String, String> headers(long retryAfterSeconds) {
    if (retryAfterSeconds < 0) {
      throw new IllegalArgumentException(
          "retryAfterSeconds must not be negative, was " + retryAfterSeconds);
    }
    return render(retryAfterSeconds);
  }

  /** The headers, leaving out each {@code t} above {@code maxSeconds}. */
  private Map<String, String> render(long maxSeconds) {
    if (items.isEmpty()) {
      return Map.of();
    }
    StringBuilder state = new StringBuilder();
    for (int i = 0; i < items.size(); i++) {
      state.append(i == 0 ? "" : ", ").append(items.get(i));
      long t = itemSeconds.get(i);
      if (t <= maxSeconds) {
        state.append(";t=").append(t);
      }
    }
    Map<String, String> headers = new LinkedHashMap<>();
    headers.put(RATE_LIMIT_POLICY, String.join(", ", policies));
    headers.put(RATE_LIMIT, state.toString());
    return headers;
  }

  /**
   * How long until a rule with {@code limits}, whose {@code grant} left its binding limit without a
   * permit, grants one again at the latest: the binding limit's reset, and every other limit's
   * window plus precision (any of them may have run out with the same request, and each forgets
   * what it counts now within that time).
   */
  static long nextPermitBoundNanos(List<Limit> limits, Decision grant) {
    long bound = grant.resetAfter().toNanos();
    for (Limit limit : limits) {
      if (!limit.equals(grant.limit())) {
        bound = Math.max(bound, limit.windowNanos() + limit.precisionNanos() - 1);
      }
    }
    return bound;
  }

  /**
   * The whole seconds a client must wait: {@code retryAfter} rounded up, so never earlier than the
   * true wait, and at least 1 for a positive wait.
   */
  public static long retryAfterSecondsOf(Duration retryAfter) {
    long nanos = retryAfter.toNanos();
    return nanos / 1_000_000_000L + (nanos % 1_000_000_000L == 0 ? 0 : 1);
  }

  private static long wholeSeconds(long nanos) {
    return Math.max(1, retryAfterSecondsOf(Duration.ofNanos(nanos)));
  }

  /**
   * The policy names of a rule's limits, unique within the rule: the rule's name for a single
   * limit, otherwise the name and the window ({@code product-2s}), or the position when two windows
   * are equal.
   */
  public static List<String> policyNames(String ruleName, List<Limit> limits) {
    if (limits.size() == 1) {
      return List.of(ruleName);
    }
    List<String> names = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < limits.size(); i++) {
      long nanos = limits.get(i).windowNanos();
      String window =
          nanos % 1_000_000_000L == 0
              ? nanos / 1_000_000_000L + "s"
              : nanos % 1_000_000L == 0 ? nanos / 1_000_000L + "ms" : nanos + "ns";
      String name = ruleName + "-" + window;
      if (!seen.add(name)) {
        name = ruleName + "-" + (i + 1);
        seen.add(name);
      }
      names.add(name);
    }
    return List.copyOf(names);
  }
}
