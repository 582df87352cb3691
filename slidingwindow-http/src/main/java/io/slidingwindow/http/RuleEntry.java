package io.slidingwindow.http;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyRejectedException;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.Plan;
import io.slidingwindow.Reservation;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * One rule of an {@link EnforcementCore} with what it reads from a request (its condition, its key,
 * its cost) and its limiter. A key function that gives null or throws does not exempt a request:
 * the request is counted under its client's key instead (under {@link RequestKey#global()} where
 * the core knows no clients, as for a {@code @RateLimit} bean method's calls), and so is a request
 * whose key the limiter rejects as invalid ({@link IllegalArgumentException}); no failure policy
 * ever sees an invalid key. Immutable; thread-safe if the functions and the limiter are.
 *
 * @param rule the rule
 * @param applies whether the rule applies to a request that matches its paths and methods
 * @param keys the request's key, null to skip the request
 * @param permits the permits the request asks for; raised to the rule's cost if fewer
 * @param limiter the rule's limiter
 * @param policies the policy name of each limit
 * @param withoutKey where a request without a key of its own counts, as the log and the listener
 *     are told: {@link #BY_CLIENT} or {@link #BY_GLOBAL_KEY}
 */
record RuleEntry<Q>(
    HttpRule rule,
    Predicate<? super Q> applies,
    Function<? super Q, RequestKey> keys,
    ToLongFunction<? super Q> permits,
    KeyedRateLimiter<String> limiter,
    List<String> policies,
    String withoutKey) {

  /** Where a request without a key of its own counts, when the core knows its client. */
  static final String BY_CLIENT = "the request counts under its client's key";

  /**
   * Where a call without a key of its own counts when the core knows no client (a {@code RateLimit}
   * bean method): the one global key, which every such call of the rule shares.
   */
  static final String BY_GLOBAL_KEY =
      "the call counts under the global key, shared by every call of the rule without a key";

  /** What became of a request whose key function gave no key, before {@code withoutKey}. */
  private static final String NO_KEY_GIVEN = "its key function gave no key; ";

  /** What became of a request whose key function threw, before {@code withoutKey}. */
  private static final String KEY_FAILED = "its key function failed; ";

  /** What became of a request whose key the limiter rejected, before {@code withoutKey}. */
  private static final String KEY_REJECTED = "its limiter rejected the key; ";

  /**
   * What became of a request the limiter threw an {@link IllegalArgumentException} for that is not
   * a {@link KeyRejectedException}.
   */
  private static final String NOT_DECIDED =
      "its limiter could not decide it (an invalid argument, not a rejected key); refused, counted"
          + " nowhere";

  /** A key function's null, told to listeners; thrown by nothing, so it has no stack trace. */
  private static final RuntimeException NO_KEY = new NoKey();

  /**
   * One entry per rule of {@code rules}, with the key function, condition and cost at its index and
   * a limiter from {@code factory}; a request without a key counts under its client's key if {@code
   * byClient}, else under the global key.
   *
   * @throws IllegalArgumentException if two rules share a name, the factory rejects a rule or gives
   *     null, or a rule counts only some statuses and its limiter cannot give permits back
   */
  static <Q> List<RuleEntry<Q>> of(
      List<HttpRule> rules,
      List<Function<? super Q, RequestKey>> keys,
      List<Predicate<? super Q>> conditions,
      List<ToLongFunction<? super Q>> costs,
      RateLimiterFactory factory,
      boolean byClient) {
    Set<String> names = new HashSet<>();
    List<RuleEntry<Q>> entries = new ArrayList<>();
    for (int i = 0; i < rules.size(); i++) {
      HttpRule rule = rules.get(i);
      if (!names.add(rule.name())) {
        throw new IllegalArgumentException(
            "rule names must be unique, '" + rule.name() + "' repeats");
      }
      KeyedRateLimiter<String> limiter =
          factory.create(rule.name(), rule.limits(), rule.countRefusedAttempts());
      if (limiter == null) {
        throw new IllegalArgumentException(
            "limiterFactory returned null for rule '" + rule.name() + "'");
      }
      Settlement.checkRefunds(rule, limiter);
      entries.add(
          new RuleEntry<>(
              rule,
              conditions.get(i),
              keys.get(i),
              costs.get(i),
              limiter,
              QuotaHeaders.policyNames(rule.name(), rule.limits()),
              byClient ? BY_CLIENT : BY_GLOBAL_KEY));
    }
    return List.copyOf(entries);
  }

  /**
   * Whether the rule's condition holds for {@code request}; true if the condition throws, which
   * {@code calls} is told of: a failing condition never exempts a request.
   */
  boolean applies(Q request, ListenerCalls calls) {
    try {
      return applies.test(request);
    } catch (RuntimeException e) {
      calls.error(rule, e, "its condition failed, so the rule applies");
      return true;
    }
  }

  /**
   * The permits {@code request} takes: what it asks for, but at least the rule's cost; the rule's
   * cost if asking throws, which {@code calls} is told of.
   */
  long permitsOf(Q request, ListenerCalls calls) {
    long asked;
    try {
      asked = permits.applyAsLong(request);
    } catch (RuntimeException e) {
      calls.error(rule, e, "its cost failed, so the request costs " + rule.cost());
      asked = rule.cost();
    }
    return Math.max(asked, rule.cost());
  }

  /**
   * The refusal of a request for more {@code permits} than a limit holds, which no wait would
   * grant, without asking the limiter; null if every limit can grant them. Its {@code retryAfter}
   * and {@code resetAfter} are that limit's window, and {@code remaining} is 0 (not asked).
   */
  Decision overLimit(long permits) {
    return rule.limitBelow(permits)
        .map(limit -> Decision.refused(0, limit.window(), limit.window(), limit))
        .orElse(null);
  }

  /**
   * The bounded key of the request if the rule matches one of its {@code paths} and {@code method}
   * and applies to it, null to skip it; {@code client} if the key function gives null or throws,
   * which {@code calls} is told of.
   *
   * @param client the bounded key of the request's client, found once per request
   */
  String keyOf(
      Q request, String method, List<String> paths, ListenerCalls calls, Supplier<String> client) {
    if (!matchesAny(method, paths) || !applies(request, calls)) {
      return null;
    }
    RequestKey key;
    try {
      key = keys.apply(request);
    } catch (RuntimeException e) {
      calls.error(rule, e, KEY_FAILED + withoutKey);
      return client.get();
    }
    if (key == null) {
      calls.error(rule, NO_KEY, NO_KEY_GIVEN + withoutKey);
      return client.get();
    }
    return LimiterKeys.bounded(key.value());
  }

  /**
   * As {@link #keyOf(Object, String, List, ListenerCalls, Supplier)} for the rule at {@code index}
   * of its core: null at once if {@code applied} has it, and added to {@code applied} when it gives
   * a key; {@code applied} null for none.
   */
  String keyOf(
      int index,
      BitSet applied,
      Q request,
      String method,
      List<String> paths,
      ListenerCalls calls,
      Supplier<String> client) {
    if (applied != null && applied.get(index)) {
      return null;
    }
    String key = keyOf(request, method, paths, calls, client);
    if (key != null && applied != null) {
      applied.set(index);
    }
    return key;
  }

  /**
   * The decision on {@code permits} for {@code key} of {@code client} (its group, or null for
   * none), made at once: the over-limit refusal, else the limiter's; if the limiter rejects the key
   * ({@link KeyRejectedException}), the decision for {@code client} (or {@link
   * RequestKey#global()}), and a refusal if it rejects that too; for any other {@link
   * IllegalArgumentException}, a refusal counted nowhere. Other failures are thrown. A rule that
   * counts only some statuses reserves instead, and a reservation that can be given back is added
   * to {@code pending}.
   */
  Decision decide(
      String key,
      String client,
      long permits,
      ListenerCalls calls,
      List<Settlement.Pending> pending) {
    if (rule.countStatuses() == null) {
      return take(key, client, permits, calls, limiter::decide, d -> d);
    }
    Reservation reservation =
        take(key, client, permits, calls, limiter::reserve, Reservation::nonRefundable);
    return reserved(reservation, calls, pending);
  }

  /**
   * As {@link #decide}, without blocking: through {@link KeyedRateLimiter#decideAsync(Object,
   * Object, long)} (or {@code reserveAsync}). The stage completes exceptionally only for failures
   * other than an invalid key.
   */
  CompletionStage<Decision> decideAsync(
      String key,
      String client,
      long permits,
      ListenerCalls calls,
      List<Settlement.Pending> pending) {
    if (rule.countStatuses() == null) {
      return takeAsync(key, client, permits, calls, limiter::decideAsync, d -> d);
    }
    return takeAsync(key, client, permits, calls, limiter::reserveAsync, Reservation::nonRefundable)
        .thenApply(reservation -> reserved(reservation, calls, pending));
  }

  private Decision reserved(
      Reservation reservation, ListenerCalls calls, List<Settlement.Pending> pending) {
    if (reservation.isRefundable()) {
      pending.add(new Settlement.Pending(rule, reservation, calls));
    }
    return reservation.decision();
  }

  /** One call of the limiter: {@code decide} or {@code reserve}, and their asynchronous forms. */
  @FunctionalInterface
  private interface Call<T> {
    T call(String key, String group, long permits);
  }

  private <T> T take(
      String key,
      String client,
      long permits,
      ListenerCalls calls,
      Call<T> call,
      Function<Decision, T> given) {
    Decision over = overLimit(permits);
    if (over != null) {
      return given.apply(over);
    }
    try {
      return call.call(key, client, permits);
    } catch (IllegalArgumentException e) {
      Decision notDecided = notDecided(e, key, permits, calls);
      if (notDecided != null) {
        return given.apply(notDecided);
      }
      String fallback = fallback(client);
      if (key.equals(fallback)) {
        return given.apply(invalid());
      }
      calls.error(rule, e, KEY_REJECTED + withoutKey);
      try {
        return call.call(fallback, client, permits);
      } catch (IllegalArgumentException again) {
        return given.apply(invalid());
      }
    }
  }

  private <T> CompletionStage<T> takeAsync(
      String key,
      String client,
      long permits,
      ListenerCalls calls,
      Call<CompletionStage<T>> call,
      Function<Decision, T> given) {
    Decision over = overLimit(permits);
    if (over != null) {
      return CompletableFuture.completedFuture(given.apply(over));
    }
    return ask(call, key, client, permits)
        .exceptionallyCompose(
            error -> {
              if (!(ListenerCalls.asRuntime(error) instanceof IllegalArgumentException invalid)) {
                return CompletableFuture.failedFuture(error);
              }
              Decision notDecided = notDecided(invalid, key, permits, calls);
              if (notDecided != null) {
                return CompletableFuture.completedFuture(given.apply(notDecided));
              }
              String fallback = fallback(client);
              if (key.equals(fallback)) {
                return CompletableFuture.completedFuture(given.apply(invalid()));
              }
              calls.error(rule, invalid, KEY_REJECTED + withoutKey);
              return ask(call, fallback, client, permits)
                  .exceptionallyCompose(
                      again ->
                          ListenerCalls.asRuntime(again) instanceof IllegalArgumentException
                              ? CompletableFuture.completedFuture(given.apply(invalid()))
                              : CompletableFuture.failedFuture(again));
            });
  }

  /**
   * The refusal, counted nowhere, of a request the limiter threw {@code e} for, unless {@code e}
   * rejects the key (null then: the request counts under its client's key). Only a {@link
   * KeyRejectedException} may move a request to another key, whose limits may be the rule's larger
   * ones where the key's plan is smaller. Listeners are told.
   */
  private Decision notDecided(
      IllegalArgumentException e, String key, long permits, ListenerCalls calls) {
    if (e instanceof KeyRejectedException) {
      return null;
    }
    calls.error(rule, e, NOT_DECIDED);
    Decision overPlan = overPlan(key, permits);
    return overPlan != null ? overPlan : invalid();
  }

  /**
   * The refusal of a request for more permits than {@code key}'s plan holds, when the limiter threw
   * for it; null when the key has no plan that is too small. The library's limiters refuse such a
   * request themselves. Asked only after the limiter threw, so a request that is decided pays
   * nothing for it. Binding is the plan's smallest limit, whose window is the wait, as the
   * library's limiters answer.
   */
  private Decision overPlan(String key, long permits) {
    Plan plan;
    try {
      plan = limiter.planOf(key);
    } catch (RuntimeException e) {
      return null;
    }
    if (plan == null) {
      return null;
    }
    Limit smallest = null;
    for (Limit limit : plan.limits()) {
      if (smallest == null || limit.permits() < smallest.permits()) {
        smallest = limit;
      }
    }
    if (smallest == null || smallest.permits() >= permits) {
      return null;
    }
    return Decision.refused(0, smallest.window(), smallest.window(), smallest);
  }

  /** The key a request counts under when the limiter rejects its own: its client's. */
  private static String fallback(String client) {
    return client != null ? client : RequestKey.global().value();
  }

  /** The limiter's asynchronous answer, with an invalid argument as a failed stage. */
  private static <T> CompletionStage<T> ask(
      Call<CompletionStage<T>> call, String key, String client, long permits) {
    try {
      return call.call(key, client, permits);
    } catch (IllegalArgumentException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * The refusal of a request whose client key, too, the limiter rejects: never a grant. Reports the
   * rule's longest limit, whose window is the wait.
   */
  private Decision invalid() {
    Limit longest = rule.limits().get(0);
    for (Limit limit : rule.limits()) {
      if (limit.windowNanos() > longest.windowNanos()) {
        longest = limit;
      }
    }
    return Decision.refused(0, longest.window(), longest.window(), longest);
  }

  private boolean matchesAny(String method, List<String> paths) {
    for (int i = 0; i < paths.size(); i++) {
      if (rule.matches(method, paths.get(i))) {
        return true;
      }
    }
    return false;
  }

  /** The report of a key function that gave null. */
  private static final class NoKey extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NoKey() {
      super("the key function gave no key", null, false, false);
    }
  }
}
