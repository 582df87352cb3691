package io.slidingwindow.http;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

/**
 * The rules of an {@link EnforcementCore} applied to one request in order, synchronously or without
 * blocking, both ending in the same {@link Answers}: the loops behind {@link
 * EnforcementCore#enforce} and {@link EnforcementCore#enforceAsync}. Immutable; thread-safe if the
 * keys, the limiters and the listener are.
 *
 * @param entries the rules, in the order they are applied
 * @param listener told of each failure
 * @param answers what becomes of each decision and of a request let through
 * @param clients how the request's client is found
 */
record RuleChain<Q>(
    List<RuleEntry<Q>> entries,
    ListenerCalls listener,
    Answers answers,
    RequestClients<Q> clients) {

  /**
   * Applies the rules to {@code request}, deciding through {@link KeyedRateLimiter#decide}; skips
   * the rules in {@code applied} (by index; null for none) and adds to it each rule that applies.
   */
  EnforcementCore.Outcome enforce(
      Q request, String method, List<String> paths, Supplier<QuotaHeaders> report, BitSet applied) {
    QuotaHeaders headers = null;
    Supplier<String> client = clients.of(request);
    List<Settlement.Pending> pending = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      RuleEntry<Q> entry = entries.get(i);
      String key = entry.keyOf(i, applied, request, method, paths, listener, client);
      if (key == null) {
        continue;
      }
      long permits = entry.permitsOf(request, listener);
      Decision decision;
      try {
        decision = entry.decide(key, clients.groupOf(client), permits, listener, pending);
      } catch (RuntimeException e) {
        failed(entry, e);
        continue;
      }
      if (headers == null) {
        headers = report.get();
      }
      EnforcementCore.Outcome refused =
          answers.apply(entry, key, decision, headers, method, paths, pending);
      if (refused != null) {
        return refused;
      }
    }
    return answers.passed(headers, pending);
  }

  /**
   * As {@link #enforce}, through {@link KeyedRateLimiter#decideAsync}: the next rule is applied
   * when the previous decision completes, on the thread that completed it.
   */
  CompletionStage<EnforcementCore.Outcome> enforceAsync(
      Q request, String method, List<String> paths, Supplier<QuotaHeaders> report, BitSet applied) {
    Supplier<String> client = clients.of(request);
    var pending = new ArrayList<Settlement.Pending>();
    return next(0, request, method, paths, report, new QuotaHeaders[1], client, pending, applied);
  }

  private CompletionStage<EnforcementCore.Outcome> next(
      int from,
      Q request,
      String method,
      List<String> paths,
      Supplier<QuotaHeaders> report,
      QuotaHeaders[] headers,
      Supplier<String> client,
      List<Settlement.Pending> pending,
      BitSet applied) {
    for (int i = from; i < entries.size(); i++) {
      RuleEntry<Q> entry = entries.get(i);
      String key = entry.keyOf(i, applied, request, method, paths, listener, client);
      if (key == null) {
        continue;
      }
      long permits = entry.permitsOf(request, listener);
      CompletionStage<Decision> decision;
      try {
        decision = entry.decideAsync(key, clients.groupOf(client), permits, listener, pending);
      } catch (RuntimeException e) {
        failed(entry, e);
        continue;
      }
      int following = i + 1;
      return decision
          .handle(
              (answer, error) -> {
                if (error != null || answer == null) {
                  failed(entry, ListenerCalls.asRuntime(error));
                  return null;
                }
                if (headers[0] == null) {
                  headers[0] = report.get();
                }
                return answers.apply(entry, key, answer, headers[0], method, paths, pending);
              })
          .thenCompose(
              refused ->
                  refused != null
                      ? CompletableFuture.completedFuture(refused)
                      : next(
                          following, request, method, paths, report, headers, client, pending,
                          applied));
    }
    return CompletableFuture.completedFuture(answers.passed(headers[0], pending));
  }

  private void failed(RuleEntry<Q> entry, RuntimeException error) {
    listener.error(entry.rule(), error, "its limiter failed; the request was let through");
  }
}
