package io.slidingwindow;

import io.slidingwindow.internal.Checks;
import io.slidingwindow.internal.KeyBound;
import io.slidingwindow.internal.Planner;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Sliding-window rate limiters for many keys, one independent set of windows per key, with the
 * guarantee of {@link RateLimiter} for each key.
 *
 * <p>The in-process implementation from {@link #builder()} tracks a key from its first request and
 * evicts it once its windows count no permit, which forgets nothing. It never tracks more than
 * {@link Builder#maxKeys(long)} keys, nor more than {@link Builder#maxKeysPerGroup(long)} of one
 * group (see {@link #decide(Object, Object, long)}); what happens to new keys beyond that is the
 * {@link KeyOverflow} policy, whose design and guarantee {@link KeyOverflow} states. String keys
 * are stored as {@link LimiterKeys#bounded(String)} of themselves. It is thread-safe: each key has
 * its own lock (the monitor of its state), and requests for different keys do not contend.
 *
 * <p>Memory, besides the key itself, with compressed references (measured with {@code KeyedMemory}
 * in the benchmarks module). A key with one limit costs about 90 bytes: its node and slot in the
 * table, about 43, and one 48-byte state. Its ring of runs comes with the first run: 16 bytes plus
 * 8 per slot, or 16 per slot if the limit's permits exceed its precision in nanoseconds; it starts
 * at two slots and doubles up to {@link Limit#maxStoredRuns()}. For example 1000 per minute at the
 * default 60 ms precision, with 3 runs in a ring of 4: about 140 bytes. A key with {@code n >= 2}
 * limits costs about {@code 100 + 50 * n} bytes plus a ring per limit.
 *
 * <p>Plans. A limiter built with a {@link PlanResolver} ({@link Builder#build(PlanResolver)}) gives
 * each key its plan's limits instead of the default ones; the rule by which a key's recorded
 * permits follow a change of its limits, and the guarantee across it, are stated in {@link Plan}.
 * Such a limiter refuses, without counting it and without throwing, a request for more permits than
 * the smallest limit of the key's plan: what a key may ask depends on the key, so an oversized
 * request is a refusal whose {@code retryAfter} is that limit's window, never an error that a
 * caller could take for an invalid key. An implementation of an application's own that will not
 * count a key as given says so with {@link KeyRejectedException}, which callers may answer by
 * counting the request under another key; any other {@link IllegalArgumentException} is a request
 * that is wrong as made.
 *
 * <p>Quota operations. {@link #peek} reads what is left of a key's limits without taking anything;
 * {@link #reset} forgets a key's recorded permits; {@link #refund} takes recorded permits back;
 * {@link #reserve} takes permits as {@link #decide} does and can give exactly those back, for
 * counting after the fact (see {@link Reservation}). Reset and refund are operations for the
 * application or its administrators, never for the client whose quota they change: a client that
 * may refund its own permits has no limit. In process they are atomic per key, as every call is.
 *
 * @param <K> the key type; keys need consistent {@code equals} and {@code hashCode}
 */
public interface KeyedRateLimiter<K> {

  /** Tries to take one permit for {@code key}; as {@link #tryAcquire(Object, long)}. */
  default boolean tryAcquire(K key) {
    return tryAcquire(key, 1);
  }

  /**
   * Takes {@code permits} for {@code key} now if every limit allows them.
   *
   * @return whether the permits were granted
   * @throws IllegalArgumentException if {@code key} is null, or {@code permits} is not positive or
   *     exceeds a limit's {@code N} (with plans, such a request is refused instead)
   */
  boolean tryAcquire(K key, long permits);

  /**
   * As {@link #tryAcquire(Object, long)}, and says why, how much is left and when to retry.
   *
   * @throws IllegalArgumentException if {@code key} is null, or {@code permits} is not positive or
   *     exceeds a limit's {@code N} (with plans, such a request is refused instead)
   */
  Decision decide(K key, long permits);

  /**
   * As {@link #decide(Object, long)}, for callers that must not block, such as an event loop. A
   * backend that waits for a remote store answers when the store does; the default, used by the
   * in-process limiter, which never waits for anything but a key's brief lock, decides on the
   * calling thread and returns a stage that is already complete.
   *
   * @throws IllegalArgumentException at once, as {@link #decide(Object, long)}
   */
  default CompletionStage<Decision> decideAsync(K key, long permits) {
    return CompletableFuture.completedFuture(decide(key, permits));
  }

  /**
   * As {@link #decide(Object, long)} for a key of {@code group}: who presents the key, such as the
   * client address of an HTTP request keyed on its API key. The in-process limiter tracks a new key
   * only while its group holds fewer than {@link Builder#maxKeysPerGroup(long)} keys (a key equal
   * to its group is not counted against it), so that new keys from a few groups cannot fill the
   * table (see {@link KeyOverflow}). Backends without a key table ignore {@code group}, which is
   * what this default does.
   *
   * @param group the key's group, or null for none
   * @throws IllegalArgumentException as {@link #decide(Object, long)}
   */
  default Decision decide(K key, K group, long permits) {
    return decide(key, permits);
  }

  /**
   * As {@link #decide(Object, Object, long)}, without blocking, as {@link #decideAsync(Object,
   * long)}; by default that call, {@code group} ignored.
   *
   * @param group the key's group, or null for none
   * @throws IllegalArgumentException at once, as {@link #decide(Object, long)}
   */
  default CompletionStage<Decision> decideAsync(K key, K group, long permits) {
    return decideAsync(key, permits);
  }

  /**
   * The limits every key gets, in the order they were added; with plans, the default limits of keys
   * on no plan.
   */
  List<Limit> limits();

  /**
   * What is left of {@code key}'s limits now, one {@link Quota.Usage} per limit, without taking
   * anything and without tracking a key that is not tracked yet (its quota is then whole).
   *
   * @throws IllegalArgumentException if {@code key} is null
   * @throws UnsupportedOperationException if this limiter keeps no state it can read (the default)
   */
  default Quota peek(K key) {
    throw new UnsupportedOperationException(getClass().getName() + " cannot peek");
  }

  /**
   * As {@link #peek}, without blocking; by default that call, answered at once.
   *
   * @throws IllegalArgumentException at once, as {@link #peek}
   */
  default CompletionStage<Quota> peekAsync(K key) {
    return CompletableFuture.completedFuture(peek(key));
  }

  /**
   * Forgets every permit recorded for {@code key}, in every limit: its quota is whole again. The
   * guarantee then covers the permits recorded since: an interval that spans the reset may hold
   * those granted before it too. An administrator's operation (see the class comment).
   *
   * @throws IllegalArgumentException if {@code key} is null
   * @throws UnsupportedOperationException if this limiter cannot reset (the default)
   */
  default void reset(K key) {
    throw new UnsupportedOperationException(getClass().getName() + " cannot reset");
  }

  /**
   * As {@link #reset}, without blocking; by default that call, answered at once.
   *
   * @throws IllegalArgumentException at once, as {@link #reset}
   */
  default CompletionStage<Void> resetAsync(K key) {
    reset(key);
    return CompletableFuture.completedFuture(null);
  }

  /**
   * Takes back up to {@code permits} of the newest permits recorded for {@code key}, in each limit
   * separately: its newest bucket first, then the one before, until {@code permits} are taken back
   * or the window holds none (so a window never goes below zero, and its quota never above its
   * limit). The newest are taken because they would count longest: a refund right after a grant
   * takes back what that grant recorded (to give back the permits of one earlier request exactly,
   * use {@link #reserve}). The guarantee holds for the permits that stay recorded: removing permits
   * cannot put more than {@code N} into any interval, and every later grant is decided on all
   * permits still recorded. An administrator's operation (see the class comment).
   *
   * @return what is left of the key's limits afterwards
   * @throws IllegalArgumentException if {@code key} is null, or {@code permits} is not positive or
   *     exceeds the key's largest limit
   * @throws UnsupportedOperationException if this limiter cannot refund (the default), or counts
   *     refused attempts (its stored runs are compressed on the premise that none is taken back)
   */
  default Quota refund(K key, long permits) {
    throw new UnsupportedOperationException(getClass().getName() + " cannot refund");
  }

  /**
   * As {@link #refund}, without blocking; by default that call, answered at once.
   *
   * @throws IllegalArgumentException at once, as {@link #refund}
   */
  default CompletionStage<Quota> refundAsync(K key, long permits) {
    return CompletableFuture.completedFuture(refund(key, permits));
  }

  /** Reserves {@code permits} for {@code key}; as {@link #reserve(Object, Object, long)}. */
  default Reservation reserve(K key, long permits) {
    return reserve(key, null, permits);
  }

  /**
   * Takes {@code permits} for {@code key} of {@code group} exactly as {@link #decide(Object,
   * Object, long)} does, and returns a {@link Reservation} that can give exactly those permits back
   * once: reserve now, refund later, for rules that count a request only when its answer meets a
   * condition. The in-process and Redis limiters take back exactly the reserved permits; this
   * default, for other backends, refunds with {@link #refund} (the key's newest permits).
   *
   * @param group the key's group, or null for none
   * @throws IllegalArgumentException as {@link #decide(Object, long)}
   */
  default Reservation reserve(K key, K group, long permits) {
    return reservationOf(this, key, permits, decide(key, group, permits));
  }

  /**
   * As {@link #reserve(Object, Object, long)}, without blocking, as {@link #decideAsync(Object,
   * long)}.
   *
   * @param group the key's group, or null for none
   * @throws IllegalArgumentException at once, as {@link #decide(Object, long)}
   */
  default CompletionStage<Reservation> reserveAsync(K key, K group, long permits) {
    return decideAsync(key, group, permits).thenApply(d -> reservationOf(this, key, permits, d));
  }

  /**
   * The plan whose limits decide {@code key} now, or null when the key gets the default {@link
   * #limits()}: what a report of a decision (a response's quota headers) tells the key. Takes
   * nothing and does not track the key; a limiter that keeps a key's plan with its state (the
   * in-process one) answers from that state, and asks the resolver only for a key it does not
   * track. A limiter without plans answers null, which is this default.
   *
   * @throws IllegalArgumentException if {@code key} is null
   */
  default Plan planOf(K key) {
    Checks.requireNonNull(key, "key");
    return null;
  }

  /**
   * Makes every key ask the {@link PlanResolver} again on its next call, for a run-time change of
   * plans: after a plan's limits change, or keys move to other plans. Each key's recorded permits
   * are carried over as {@link Plan} says. A backend that asks on every call, or has no plans, does
   * nothing, which is this default; the Redis limiter asks on every call and passes this on to its
   * in-process fallback.
   */
  default void refreshPlans() {}

  /**
   * Evicts every key whose windows count no permit now. The in-process limiter also does this
   * incrementally, a few keys each time it starts tracking a new one; call this to reclaim memory
   * at once. Backends whose state expires by itself do nothing.
   */
  default void cleanUp() {}

  /** Returns a builder of in-process keyed limiters. */
  static Builder builder() {
    return new Builder();
  }

  /** The default reservation: a grant that was counted is refunded with {@link #refund}. */
  private static <K> Reservation reservationOf(
      KeyedRateLimiter<K> limiter, K key, long permits, Decision decision) {
    if (!decision.allowed() || decision.isKeyOverflow()) {
      return Reservation.nonRefundable(decision);
    }
    return Reservation.refundable(
        decision,
        new Reservation.Refunder() {
          @Override
          public void refund() {
            limiter.refund(key, permits);
          }

          @Override
          public CompletionStage<Void> refundAsync() {
            return limiter.refundAsync(key, permits).thenApply(q -> null);
          }
        });
  }

  /**
   * Builds in-process {@link KeyedRateLimiter}s. Each setting may be set once: setting it again to
   * a different value throws {@link IllegalStateException}. Not thread-safe.
   */
  final class Builder extends LimiterBuilder<Builder> {

    /** The default bound on tracked keys. */
    public static final long DEFAULT_MAX_KEYS = KeyBound.DEFAULT_MAX_KEYS;

    /** One group may hold this fraction of {@link #maxKeys} unless set: one hundredth. */
    private static final int DEFAULT_GROUP_SHARE = 100;

    private final KeyBound<Builder> keyBound = new KeyBound<>(this);

    /** Null until set. */
    private Long maxKeysPerGroup;

    Builder() {}

    /**
     * Sets the most keys tracked at once, {@value #DEFAULT_MAX_KEYS} by default.
     *
     * @throws IllegalArgumentException if {@code maxKeys} is not positive or exceeds {@link
     *     Integer#MAX_VALUE}
     * @throws IllegalStateException if a different bound was set
     */
    public Builder maxKeys(long maxKeys) {
      return keyBound.maxKeys(maxKeys);
    }

    /**
     * Sets the most keys of one group tracked at once (see {@link KeyedRateLimiter#decide(Object,
     * Object, long)}); by default one hundredth of {@link #maxKeys}, at least 1. A key equal to its
     * group is not counted against the group. Keys of fewer than {@code maxKeys / (maxKeysPerGroup
     * + 1)} groups can never fill the table.
     *
     * @throws IllegalArgumentException if {@code maxKeysPerGroup} is not positive or exceeds {@link
     *     Integer#MAX_VALUE}
     * @throws IllegalStateException if a different bound was set
     */
    public Builder maxKeysPerGroup(long maxKeysPerGroup) {
      Checks.requireBetween(maxKeysPerGroup, 1, Integer.MAX_VALUE, "maxKeysPerGroup");
      this.maxKeysPerGroup =
          Checks.setOnce(this.maxKeysPerGroup, maxKeysPerGroup, "maxKeysPerGroup");
      return this;
    }

    /**
     * Sets what happens to new keys while {@link #maxKeys} keys are tracked, or their group's
     * {@link #maxKeysPerGroup}, {@link KeyOverflow#REFUSE} by default.
     *
     * @throws IllegalArgumentException if {@code overflow} is null
     * @throws IllegalStateException if a different policy was set
     */
    public Builder onKeyOverflow(KeyOverflow overflow) {
      return keyBound.onKeyOverflow(overflow);
    }

    /**
     * Builds the keyed limiter and reads its clock once, as the origin of every key's buckets.
     *
     * @param <K> the key type
     * @throws IllegalArgumentException if no limit was added, or a limit's stored runs could not
     *     fit in memory
     */
    public <K> KeyedRateLimiter<K> build() {
      return build(null);
    }

    /**
     * Builds a keyed limiter whose keys get their plan's limits, as {@code plans} says, and the
     * limits of this builder when on no plan. A key's plan is asked for when the key is tracked,
     * kept with its state, and asked for again after {@link KeyedRateLimiter#refreshPlans()} or
     * once the key was evicted; the resolver gets the key as given to the limiter. How a key's
     * recorded permits follow a change of its limits is stated in {@link Plan}. A plan whose limit
     * cannot fit in memory fails the call of its first key with {@link IllegalArgumentException}.
     *
     * @param <K> the key type
     * @param plans the resolver, or null for none (every key gets this builder's limits)
     * @throws IllegalArgumentException as {@link #build()}
     */
    public <K> KeyedRateLimiter<K> build(PlanResolver<K> plans) {
      int maxKeys = keyBound.maxKeys();
      int perGroup =
          maxKeysPerGroup == null
              ? Math.max(1, maxKeys / DEFAULT_GROUP_SHARE)
              : (int) Math.min(maxKeysPerGroup, maxKeys);
      List<Limit> limits = validatedLimits();
      long anchor = anchorEpochNanos();
      Planner<K> planner =
          plans == null ? null : new Planner<>(plans, limits, countsRefusedAttempts(), anchor);
      return new LocalKeyedRateLimiter<>(
          limits,
          countsRefusedAttempts(),
          ticker(),
          anchor,
          planner,
          new LocalKeyedRateLimiter.Bounds(maxKeys, perGroup, keyBound.overflow()));
    }
  }
}
