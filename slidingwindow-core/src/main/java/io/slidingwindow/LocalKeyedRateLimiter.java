package io.slidingwindow;

import io.slidingwindow.internal.KeyLimits;
import io.slidingwindow.internal.KeyTable;
import io.slidingwindow.internal.Permits;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The in-process {@link KeyedRateLimiter}: a {@link KeyTable} from key to {@link KeyLimits}, which
 * bounds the tracked keys and evicts a key only once its windows are empty (see its design note).
 * Each key's state is its own table entry and lock; with one limit it is a single object (see
 * {@link KeyLimits} for the memory layout). String keys are stored as {@link
 * LimiterKeys#bounded(String)} of themselves, so no key costs more than a short one.
 */
final class LocalKeyedRateLimiter<K> extends LocalKeyed<K, KeyLimits>
    implements KeyedRateLimiter<K> {

  private final List<Limit> limits;
  private final long largestGrantable;

  /** What {@link #tryAcquire} does per key; built once, so a call allocates nothing. */
  private final KeyTable.Action<KeyLimits, Void> tryAcquire;

  /** What {@link #decide} does per key: puts the decision in the call's {@link Answer}. */
  private final KeyTable.Action<KeyLimits, Answer> decide;

  LocalKeyedRateLimiter(
      List<Limit> limits,
      boolean countRefused,
      Ticker ticker,
      int maxKeys,
      int maxKeysPerGroup,
      KeyOverflow overflow) {
    // Computes the limits' shared figures once, and fails at build time if a limit cannot fit.
    super(
        new KeyTable<>(maxKeys, maxKeysPerGroup, KeyLimits.factory(limits, countRefused)), ticker);
    this.limits = limits;
    this.largestGrantable = Permits.largestGrantable(limits);
    Limit longest = limits.get(0);
    for (Limit limit : limits) {
      if (limit.windowNanos() > longest.windowNanos()) {
        longest = limit;
      }
    }
    Decision whenFull =
        Decision.keyOverflow(overflow != KeyOverflow.REFUSE, longest.window(), longest);
    this.tryAcquire =
        new KeyTable.Action<>() {
          @Override
          public long apply(KeyLimits state, long now, long permits, Void unused) {
            return state.tryAcquire(now, permits) ? 1 : 0;
          }

          @Override
          public long whenFull(long permits, Void unused) {
            return whenFull.allowed() ? 1 : 0;
          }
        };
    this.decide =
        new KeyTable.Action<>() {
          @Override
          public long apply(KeyLimits state, long now, long permits, Answer answer) {
            answer.decision = state.decide(now, permits);
            return 0;
          }

          @Override
          public long whenFull(long permits, Answer answer) {
            answer.decision = whenFull;
            return 0;
          }
        };
  }

  @Override
  public boolean tryAcquire(K key, long permits) {
    K stored = bounded(key);
    Permits.check(permits, largestGrantable);
    return table.apply(stored, now(), permits, null, tryAcquire) != 0;
  }

  @Override
  public Decision decide(K key, long permits) {
    return decide(key, null, permits);
  }

  @Override
  public Decision decide(K key, K group, long permits) {
    K stored = bounded(key);
    K storedGroup = group == null ? null : bounded(group);
    Permits.check(permits, largestGrantable);
    Answer answer = new Answer();
    table.apply(stored, storedGroup, now(), permits, answer, decide);
    return answer.decision;
  }

  @Override
  public CompletionStage<Decision> decideAsync(K key, K group, long permits) {
    return CompletableFuture.completedFuture(decide(key, group, permits));
  }

  @Override
  public List<Limit> limits() {
    return limits;
  }

  @Override
  public String toString() {
    return "KeyedRateLimiter" + limits + " " + table;
  }

  /** Carries one call's decision out of the key's monitor. */
  private static final class Answer {
    Decision decision;
  }
}
