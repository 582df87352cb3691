package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.KeyLimits;
import io.slidingwindow.internal.KeyTable;
import io.slidingwindow.internal.Permits;
import io.slidingwindow.internal.PlanLimits;
import io.slidingwindow.internal.Planner;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The in-process {@link KeyedRateLimiter}: a {@link KeyTable} from key to {@link KeyLimits}, which
 * bounds the tracked keys and evicts a key only once its windows are empty (see its design note).
 * Each key's state is its own table entry and lock; with one limit it is a single object (see
 * {@link KeyLimits} for the memory layout). String keys are stored as {@link
 * LimiterKeys#bounded(String)} of themselves, so no key costs more than a short one.
 *
 * <p>With plans, every operation first brings the key's state to its plan ({@link Planner#ensure},
 * under the key's lock, asking the resolver with the key as given), then acts on it; a request's
 * permits are checked against the plan's limits there.
 */
final class LocalKeyedRateLimiter<K> extends LocalKeyed<K, KeyLimits>
    implements KeyedRateLimiter<K> {

  /** The key table's bounds. */
  record Bounds(int maxKeys, int maxKeysPerGroup, KeyOverflow overflow) {}

  private final List<Limit> limits;
  private final long largestGrantable;
  private final long largestPermits;
  private final boolean countRefused;

  /** Null without plans. */
  private final Planner<K> planner;

  /** What {@link #tryAcquire} does per key, with the key as given as context; built once. */
  private final KeyTable.Action<KeyLimits, Object> tryAcquire;

  /** What {@link #decide} does per key: puts the decision in the call's {@link Answer}. */
  private final KeyTable.Action<KeyLimits, Answer<K>> decide;

  LocalKeyedRateLimiter(
      List<Limit> limits,
      boolean countRefused,
      Ticker ticker,
      long anchorEpochNanos,
      Planner<K> planner,
      Bounds bounds) {
    // Computes the limits' shared figures once, and fails at build time if a limit cannot fit.
    super(
        new KeyTable<>(
            bounds.maxKeys(),
            bounds.maxKeysPerGroup(),
            planner == null
                ? KeyLimits.factory(limits, countRefused, anchorEpochNanos)
                : planner::newState),
        ticker);
    this.limits = limits;
    this.largestGrantable = Permits.largestGrantable(limits);
    this.largestPermits = Permits.largestPermits(limits);
    this.countRefused = countRefused;
    this.planner = planner;
    Decision whenFull = overflow(bounds.overflow() != KeyOverflow.REFUSE, limits);
    this.tryAcquire =
        new KeyTable.Action<>() {
          @Override
          public long apply(KeyLimits state, long now, long permits, Object key) {
            if (beyondPlan(state, key, now, permits) != null) {
              return 0;
            }
            return state.tryAcquire(now, permits) ? 1 : 0;
          }

          @Override
          public long whenFull(long permits, Object key) {
            return whenFull.allowed() ? 1 : 0;
          }
        };
    this.decide =
        new KeyTable.Action<>() {
          @Override
          public long apply(KeyLimits state, long now, long permits, Answer<K> answer) {
            Decision beyond = beyondPlan(state, answer.key, now, permits);
            answer.decision = beyond != null ? beyond : state.decide(now, permits);
            answer.stamp = state.latest();
            return 0;
          }

          @Override
          public long whenFull(long permits, Answer<K> answer) {
            PlanLimits plan = planner == null ? null : planner.resolve(answer.key);
            answer.decision = plan == null ? whenFull : overflow(whenFull.allowed(), plan.limits());
            return 0;
          }
        };
  }

  /**
   * The answer to a key the full table cannot track: granted untracked or refused, by the longest
   * of {@code limits} (the key's plan's, if it has one), whose window is the wait.
   */
  private static Decision overflow(boolean allowed, List<Limit> limits) {
    Limit longest = limits.get(0);
    for (Limit limit : limits) {
      if (limit.windowNanos() > longest.windowNanos()) {
        longest = limit;
      }
    }
    return Decision.keyOverflow(allowed, longest.window(), longest);
  }

  /** Brings a key's state to its plan, if plans are used; holds the key's lock. */
  @SuppressWarnings("unchecked")
  private PlanLimits planned(KeyLimits state, Object key, long now) {
    return planner == null ? null : planner.ensure(state, (K) key, now);
  }

  /**
   * Plans the key; the refusal of a request for more permits than its limits can ever grant ({@link
   * Permits#neverGranted}), or null. Without plans, {@link #checkPermits} has rejected such a
   * request before its key is looked up.
   */
  private Decision beyondPlan(KeyLimits state, Object key, long now, long permits) {
    PlanLimits plan = planned(state, key, now);
    if (plan == null || permits <= plan.largestGrantable()) {
      return null;
    }
    return Permits.neverGranted(plan.limits(), permits);
  }

  /** Checks a request's permits before its key is looked up: all of it, without plans. */
  private void checkPermits(long permits) {
    if (planner == null) {
      Permits.check(permits, largestGrantable);
    } else {
      Checks.requirePositive(permits, "permits");
    }
  }

  @Override
  public boolean tryAcquire(K key, long permits) {
    K stored = bounded(key);
    checkPermits(permits);
    return table.apply(stored, now(), permits, key, tryAcquire) != 0;
  }

  @Override
  public Decision decide(K key, long permits) {
    return decide(key, null, permits);
  }

  @Override
  public Decision decide(K key, K group, long permits) {
    return answer(key, group, permits).decision;
  }

  private Answer<K> answer(K key, K group, long permits) {
    K stored = bounded(key);
    K storedGroup = group == null ? null : bounded(group);
    checkPermits(permits);
    Answer<K> answer = new Answer<>(key);
    table.apply(stored, storedGroup, now(), permits, answer, decide);
    return answer;
  }

  @Override
  public CompletionStage<Decision> decideAsync(K key, K group, long permits) {
    return CompletableFuture.completedFuture(decide(key, group, permits));
  }

  @Override
  public Quota peek(K key) {
    K stored = bounded(key);
    Quota[] quota = new Quota[1];
    table.readIfTracked(
        stored,
        now(),
        (state, now) -> {
          planned(state, key, now);
          quota[0] = state.peek(now);
          return 0;
        },
        0);
    return quota[0] != null ? quota[0] : whole(key);
  }

  @Override
  public Plan planOf(K key) {
    K stored = bounded(key);
    if (planner == null) {
      return null;
    }
    Plan[] plan = new Plan[1];
    long tracked =
        table.readIfTracked(
            stored,
            now(),
            (state, now) -> {
              plan[0] = planner.ensure(state, key, now).plan();
              return 1;
            },
            0);
    return tracked == 1 ? plan[0] : planner.resolve(key).plan();
  }

  @Override
  public void reset(K key) {
    K stored = bounded(key);
    table.readIfTracked(
        stored,
        now(),
        (state, now) -> {
          planned(state, key, now);
          state.reset(now);
          return 0;
        },
        0);
  }

  @Override
  public Quota refund(K key, long permits) {
    K stored = bounded(key);
    Checks.requirePositive(permits, "permits");
    if (countRefused) {
      throw new UnsupportedOperationException(
          "refund: this limiter counts refused attempts, whose stored runs cannot give permits"
              + " back");
    }
    Quota[] quota = new Quota[1];
    table.readIfTracked(
        stored,
        now(),
        (state, now) -> {
          PlanLimits plan = planned(state, key, now);
          Permits.checkRefund(permits, plan == null ? largestPermits : plan.largestPermits());
          quota[0] = state.refund(now, permits);
          return 0;
        },
        0);
    if (quota[0] != null) {
      return quota[0];
    }
    PlanLimits plan = planner == null ? null : planner.resolve(key);
    Permits.checkRefund(permits, plan == null ? largestPermits : plan.largestPermits());
    return whole(plan);
  }

  @Override
  public Reservation reserve(K key, K group, long permits) {
    Answer<K> answer = answer(key, group, permits);
    Decision decision = answer.decision;
    if (countRefused || !decision.allowed() || decision.isKeyOverflow()) {
      return Reservation.nonRefundable(decision);
    }
    K stored = bounded(key);
    long stamp = answer.stamp;
    return Reservation.refundable(
        decision,
        Reservation.Refunder.inProcess(
            () ->
                table.readIfTracked(
                    stored,
                    now(),
                    (state, now) -> {
                      planned(state, key, now);
                      state.refundAt(now, stamp, permits);
                      return 0;
                    },
                    0)));
  }

  @Override
  public CompletionStage<Reservation> reserveAsync(K key, K group, long permits) {
    return CompletableFuture.completedFuture(reserve(key, group, permits));
  }

  @Override
  public void refreshPlans() {
    if (planner != null) {
      planner.refresh();
    }
  }

  /** The whole quota of a key that is not tracked: nothing counted. */
  private Quota whole(K key) {
    return whole(planner == null ? null : planner.resolve(key));
  }

  private Quota whole(PlanLimits plan) {
    List<Limit> of = plan == null ? limits : plan.limits();
    List<Quota.Usage> usages = new ArrayList<>(of.size());
    for (Limit limit : of) {
      usages.add(new Quota.Usage(limit, 0, limit.permits(), Duration.ZERO));
    }
    return Quota.of(plan == null ? null : plan.name(), usages);
  }

  @Override
  public List<Limit> limits() {
    return limits;
  }

  @Override
  public String toString() {
    return "KeyedRateLimiter" + limits + (planner == null ? " " : " with plans, ") + table;
  }

  /** Carries one call's key in and its decision, and the time it was recorded at, out. */
  private static final class Answer<K> {
    final K key;
    Decision decision;
    long stamp;

    Answer(K key) {
      this.key = key;
    }
  }
}
