package io.slidingwindow.redis;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Quota;
import io.slidingwindow.Reservation;
import io.slidingwindow.internal.Permits;
import io.slidingwindow.redis.Layouts.Layout;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * What {@link RedisRateLimiter} shares with its quota operations: the layouts of its limit sets
 * (with plans, one per plan), the calls that decide, and the quota operations themselves (peek,
 * reset, refund, reservations), each one call of the limiter script. Package-private: its public
 * methods are documented as {@link RedisRateLimiter}'s.
 */
abstract class RedisLimiterBase implements KeyedRateLimiter<String> {

  final RedisBackend backend;
  final List<Limit> limits;
  final Layouts layouts;
  final LimiterCalls calls;
  private final QuotaCalls quotas;
  private final boolean countRefused;

  RedisLimiterBase(
      RedisRateLimiter.Builder b, PlanResolver<String> plans, KeyedRateLimiter<String> fallback) {
    this.backend = b.backend;
    this.limits = List.copyOf(b.limits);
    ScriptTime time = new ScriptTime(b.clientTime, b.calendarClock);
    this.layouts =
        new Layouts(
            b.backend.calls(),
            limits,
            b.countRefusedAttempts,
            time,
            b.batching && !b.backend.isCluster(),
            plans);
    this.calls = new LimiterCalls(b, layouts, time, fallback);
    this.quotas = new QuotaCalls(b.backend, calls, b.commandTimeout);
    this.countRefused = b.countRefusedAttempts;
  }

  /**
   * What is left of {@code id}'s limits, read in one script call that writes nothing.
   *
   * @throws IllegalArgumentException if {@code id} is null
   * @throws RedisCallException if Redis fails or does not answer within the command timeout (no
   *     failure policy answers a quota operation)
   */
  @Override
  public Quota peek(String id) {
    Layout layout = layouts.of(checkedId(id));
    return quotas.peek(layout, LimiterKeys.bounded(id));
  }

  /** As {@link #peek}, without blocking; the stage fails with {@link RedisCallException}. */
  @Override
  public CompletionStage<Quota> peekAsync(String id) {
    Layout layout = layouts.of(checkedId(id));
    return quotas.peekAsync(layout, LimiterKeys.bounded(id));
  }

  /**
   * Deletes {@code id}'s keys of its current limits, in one script call; see {@link
   * KeyedRateLimiter#reset} for the guarantee and who may call it. Another instance that remembers
   * a refusal of the id keeps refusing it for at most the refusal's hold.
   *
   * @throws IllegalArgumentException if {@code id} is null
   * @throws RedisCallException as {@link #peek}; a reset that timed out may have run
   */
  @Override
  public void reset(String id) {
    Layout layout = layouts.of(checkedId(id));
    quotas.reset(layout, LimiterKeys.bounded(id));
  }

  /** As {@link #reset}, without blocking; the stage fails with {@link RedisCallException}. */
  @Override
  public CompletionStage<Void> resetAsync(String id) {
    Layout layout = layouts.of(checkedId(id));
    return quotas.resetAsync(layout, LimiterKeys.bounded(id));
  }

  /**
   * Takes back up to {@code permits} of {@code id}'s newest recorded permits in each limit, in one
   * script call; as {@link KeyedRateLimiter#refund}.
   *
   * @throws IllegalArgumentException if {@code id} is null, or {@code permits} is not positive or
   *     exceeds the largest limit of the id
   * @throws UnsupportedOperationException if refused attempts count
   * @throws RedisCallException as {@link #peek}; a refund that timed out may have run
   */
  @Override
  public Quota refund(String id, long permits) {
    Layout layout = layouts.of(checkedId(id));
    return quotas.refund(layout, refundable(id, layout, permits), permits);
  }

  /** As {@link #refund}, without blocking; the stage fails with {@link RedisCallException}. */
  @Override
  public CompletionStage<Quota> refundAsync(String id, long permits) {
    Layout layout = layouts.of(checkedId(id));
    return quotas.refundAsync(layout, refundable(id, layout, permits), permits);
  }

  /**
   * The plan of {@code id}, as the next call would find it: this limiter asks its resolver on every
   * call, and so here; null without plans or for an id on none. Makes no call to Redis.
   *
   * @throws IllegalArgumentException if {@code id} is null
   */
  @Override
  public Plan planOf(String id) {
    return layouts.planOf(checkedId(id));
  }

  /**
   * Passes a change of plans on to the in-process fallback, which keeps each id's plan until told;
   * this limiter itself asks the resolver on every call, so a change reaches it at once.
   */
  @Override
  public void refreshPlans() {
    calls.refreshFallbackPlans();
  }

  /**
   * Takes {@code permits} as {@link #decide} does; the reservation gives exactly them back (from
   * the bucket of the script time they were recorded at) in one script call, and its refund throws
   * {@link RedisCallException} when Redis fails. A decision of the refusal cache or the failure
   * policy, or one that counts refused attempts, is not refundable.
   *
   * @throws IllegalArgumentException as {@link #decide(Object, long)}
   */
  @Override
  public Reservation reserve(String id, String group, long permits) {
    Layout layout = layouts.of(checkedId(id));
    String stored = stored(id, layout, permits);
    return reservation(layout, stored, permits, calls.decided(layout, id, stored, permits));
  }

  /** As {@link #reserve(String, String, long)}, without blocking. */
  @Override
  public CompletionStage<Reservation> reserveAsync(String id, String group, long permits) {
    Layout layout = layouts.of(checkedId(id));
    String stored = stored(id, layout, permits);
    return calls
        .decidedAsync(layout, id, stored, permits)
        .thenApply(d -> reservation(layout, stored, permits, d));
  }

  private Reservation reservation(
      Layout layout, String stored, long permits, LimiterCalls.Decided decided) {
    Decision decision = decided.decision();
    if (!decision.allowed() || !decided.byRedis() || countRefused) {
      return Reservation.nonRefundable(decision);
    }
    long at = decided.atMicros();
    return Reservation.refundable(
        decision,
        new Reservation.Refunder() {
          @Override
          public void refund() {
            quotas.refundAt(layout, stored, permits, at);
          }

          @Override
          public CompletionStage<Void> refundAsync() {
            return quotas.refundAtAsync(layout, stored, permits, at);
          }
        });
  }

  /**
   * Checks a request before anything else and returns the id's stored key, {@link
   * LimiterKeys#bounded(String)}: what the Redis keys and the refusal cache hold, so that neither
   * holds more than {@value LimiterKeys#MAX_CHARS} characters per id. (The fallback is asked with
   * the id as given, as the resolver of plans is; an in-process fallback bounds it itself.)
   *
   * @throws IllegalArgumentException if {@code id} is null or {@code permits} is invalid
   */
  final String stored(String id, Layout layout, long permits) {
    String key = LimiterKeys.bounded(id);
    // With plans, more than an id's plan can grant is a refusal (LimiterCalls), as in process.
    Permits.check(permits, layouts.hasPlans() ? Long.MAX_VALUE : layout.largestGrantable);
    return key;
  }

  /** Checks a refund's arguments and returns the id's stored key. */
  private String refundable(String id, Layout layout, long permits) {
    String key = LimiterKeys.bounded(id);
    Permits.checkRefund(permits, layout.largestPermits);
    if (countRefused) {
      throw new UnsupportedOperationException(
          "refund: this limiter counts refused attempts, whose stored runs cannot give permits"
              + " back");
    }
    return key;
  }

  /** Checks the id before its plan is asked for. */
  static String checkedId(String id) {
    if (id == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    return id;
  }
}
