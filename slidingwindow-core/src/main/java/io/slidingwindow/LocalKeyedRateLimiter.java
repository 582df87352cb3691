package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.KeyLimits;
import io.slidingwindow.internal.KeyTable;
import io.slidingwindow.internal.Permits;
import java.time.Duration;
import java.util.List;

/**
 * The in-process {@link KeyedRateLimiter}: a {@link KeyTable} from key to {@link KeyLimits}, which
 * bounds the tracked keys and evicts a key only once its windows are empty (see its design note).
 * Each key's state is its own table entry and lock; with one limit it is a single object (see
 * {@link KeyLimits} for the memory layout).
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
      List<Limit> limits, boolean countRefused, Ticker ticker, int maxKeys, KeyOverflow overflow) {
    // Computes the limits' shared figures once, and fails at build time if a limit cannot fit.
    super(new KeyTable<>(maxKeys, KeyLimits.factory(limits, countRefused)), ticker);
    this.limits = limits;
    this.largestGrantable = Permits.largestGrantable(limits);
    Limit longest = limits.get(0);
    for (Limit limit : limits) {
      if (limit.windowNanos() > longest.windowNanos()) {
        longest = limit;
      }
    }
    Decision whenFull =
        overflow == KeyOverflow.REFUSE
            ? Decision.refused(0, longest.window(), longest.window(), longest)
            : Decision.granted(0, Duration.ZERO, longest);
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
    Checks.requireNonNull(key, "key");
    Permits.check(permits, largestGrantable);
    return table.apply(key, now(), permits, null, tryAcquire) != 0;
  }

  @Override
  public Decision decide(K key, long permits) {
    Checks.requireNonNull(key, "key");
    Permits.check(permits, largestGrantable);
    Answer answer = new Answer();
    table.apply(key, now(), permits, answer, decide);
    return answer.decision;
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
