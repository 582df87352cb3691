package io.slidingwindow.redis;

import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Ticker;
import io.slidingwindow.internal.Checks;
import io.slidingwindow.redis.Layouts.Layout;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * A sliding-window rate limiter whose state lives in Redis, shared by every instance that uses the
 * same limits, key prefix and Redis.
 *
 * <p>Guarantee. The algorithm is the in-process limiter's (see {@link Limit}), run by a Lua script
 * ({@code META-INF/slidingwindow/limiter.lua}) that decides each request atomically: for every
 * interval {@code [t, t + W)} of the clock and every limit, the permits granted to an id with
 * timestamps in that interval sum to at most {@code N}. All limits of an id are checked and
 * recorded together for each request, and only granted permits count unless {@link
 * Builder#countRefusedAttempts(boolean)} is on. A refusal happens only where an exact sliding log
 * over {@code W + precision} would refuse too.
 *
 * <p>Time and units. By default the clock is the Redis server's {@code TIME}, read inside the
 * script, so the clocks of application servers do not matter. The script works in microseconds:
 * every window and precision must be a whole number of microseconds, and an exact limit ({@link
 * Limit#exact}) is tracked at one microsecond. {@link Builder#clientTime(Ticker)} uses a local
 * ticker instead, measured from its first reading: meant for a single instance and for tests.
 *
 * <p>Keys and memory. Each sliding-window limit of an id is one Redis LIST named {@code
 * <prefix>:{<id tag>}:<N>:<W µs>:<p µs>} ({@code :r} appended when refused attempts count): a
 * 48-byte header that holds the newest (bucket, running total) run, then one run per older
 * non-empty bucket, stored as an offset from a reference bucket and a running total: at most {@code
 * min(N, ceil(W / p) + 1)} runs, about 7 bytes each. The hash tag is an encoding of the id's stored
 * key, {@link LimiterKeys#bounded(String)} (the id itself up to 256 characters, its SHA-256 digest
 * beyond), so an id of any length and content is keyed, and all keys of a call share one Cluster
 * slot. A key expires the longest window plus its precision after its newest run began, by which
 * time that run has left the window (with client time, no sooner than a minute: that ticker need
 * not run at Redis's speed). Server work per request is amortised O(1) per limit; a refusal from
 * {@link #decide} also walks the runs that must leave before the request fits (at most {@code
 * permits} runs when only grants count).
 *
 * <p>Calendar quotas ({@link Limit#calendar}) count exactly, one key per quota and id (32 bytes,
 * same hash tag), written with an expiry at its period's end. The client computes the periods
 * (Redis has no time-zone rules) around its own clock and sends the one before, its own and the
 * next; the script counts a request in the one that holds its clock's now (the server's {@code
 * TIME} by default), so at most {@code N} permits are granted per period of that clock whatever the
 * clocks of the instances. A call whose now falls outside the periods sent (a client clock off by
 * more than a period) is not decided: the failure policy answers it. See {@link
 * Builder#calendarClock}.
 *
 * <p>Refusals without a round trip. When Redis refuses an id because one of its limits has no
 * permit left, nothing but time can free one, so the limiter remembers the refusal until that
 * limit's oldest run leaves and meanwhile refuses the id locally, with the answer (and figures)
 * Redis would give; see {@link Builder#refusalCache(int)}. Not done when refused attempts count.
 *
 * <p>Requests sharing a call. On standalone Redis and Sentinel, requests to one limiter that wait
 * at the same moment go to Redis together, in one script call that decides them one after the other
 * (see {@link Builder#batching(boolean)}): under load a call then costs one round trip per batch
 * instead of one per request. On Cluster every request is a call of its own.
 *
 * <p>Failures. No Redis exception escapes a call: when Redis errs, does not answer within the
 * command timeout, or the circuit breaker is open, the {@link FailurePolicy} decides ({@link
 * FailurePolicy#LOCAL} by default: an in-process limiter with the same limits). A call that timed
 * out is never retried, since it may have run. A bad argument (a null id, a weight that is not
 * positive or exceeds a limit) is the caller's: it is thrown at once, from the synchronous and the
 * asynchronous methods alike, and never reaches Redis or the failure policy.
 *
 * <p>Thread-safe; the synchronous methods block for at most the command timeout.
 */
public final class RedisRateLimiter extends RedisLimiterBase {

  /** The default command timeout. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofMillis(50);

  /** The default key prefix. */
  public static final String DEFAULT_KEY_PREFIX = "sw";

  private RedisRateLimiter(
      Builder b, PlanResolver<String> plans, KeyedRateLimiter<String> fallback) {
    super(b, plans, fallback);
  }

  /**
   * Returns a builder of limiters on {@code backend}.
   *
   * @throws IllegalArgumentException if {@code backend} is null
   */
  public static Builder builder(RedisBackend backend) {
    if (backend == null) {
      throw new IllegalArgumentException("backend must not be null");
    }
    return new Builder(backend);
  }

  /**
   * Takes {@code permits} for {@code id} if every limit allows them; one script call, possibly
   * shared with other requests (see {@link Builder#batching(boolean)}).
   *
   * @return whether the permits were granted, or the failure policy's answer when Redis fails
   * @throws IllegalArgumentException if {@code id} is null, or {@code permits} is not positive or
   *     exceeds a limit's {@code N} (with plans, such a request is refused instead)
   */
  @Override
  public boolean tryAcquire(String id, long permits) {
    Layout layout = layouts.of(checkedId(id));
    return calls.tryAcquire(layout, id, stored(id, layout, permits), permits);
  }

  /**
   * As {@link #tryAcquire(String, long)}, with the figures of the binding limit: remaining permits,
   * the exact retryAfter, resetAfter. Times are whole microseconds.
   *
   * @throws IllegalArgumentException as {@link #tryAcquire(String, long)}
   */
  @Override
  public Decision decide(String id, long permits) {
    Layout layout = layouts.of(checkedId(id));
    return calls.decide(layout, id, stored(id, layout, permits), permits);
  }

  /**
   * As {@link #tryAcquire(String, long)}, without blocking. The stage never completes exceptionally
   * for a Redis failure: the failure policy answers instead.
   *
   * @throws IllegalArgumentException at once, as {@link #tryAcquire(String, long)}
   */
  public CompletionStage<Boolean> tryAcquireAsync(String id, long permits) {
    Layout layout = layouts.of(checkedId(id));
    return calls.tryAcquireAsync(layout, id, stored(id, layout, permits), permits);
  }

  /**
   * As {@link #decide(String, long)}, without blocking. The stage never completes exceptionally for
   * a Redis failure: the failure policy answers instead.
   *
   * @throws IllegalArgumentException at once, as {@link #tryAcquire(String, long)}
   */
  @Override
  public CompletionStage<Decision> decideAsync(String id, long permits) {
    Layout layout = layouts.of(checkedId(id));
    return calls.decideAsync(layout, id, stored(id, layout, permits), permits);
  }

  /** The default limits: those of ids on no plan. */
  @Override
  public List<Limit> limits() {
    return limits;
  }

  /**
   * Runs one call and returns the script's raw reply, {@code [allowed, now µs]}: for tests that
   * check the server timestamps of grants. Fails when Redis fails (no policy).
   */
  long[] tryAcquireWithTime(String id, long permits) throws Exception {
    return calls.tryAcquireWithTime(stored(id, layouts.defaults(), permits), permits);
  }

  /** The Redis keys of {@code id} (of its plan's limits), one per limit, in their order. */
  List<String> keysOf(String id) {
    return List.of(calls.keys(layouts.of(id), LimiterKeys.bounded(id)));
  }

  /** How many requests wait to share a script call (for tests that hold Redis still). */
  int queuedRequests() {
    return calls.queued();
  }

  /**
   * Whether this limiter's circuit breaker is open: Redis failed often enough in a row that calls
   * are turned away to the failure policy without reaching Redis, until the next probe. For health
   * checks; it reads one field.
   */
  public boolean isBreakerOpen() {
    return calls.isBreakerOpen();
  }

  @Override
  public String toString() {
    return "RedisRateLimiter"
        + limits
        + (layouts.hasPlans() ? " with plans" : "")
        + " on "
        + backend;
  }

  /** Builds {@link RedisRateLimiter}s. Not thread-safe. */
  public static final class Builder extends RedisBuilder<Builder> {

    /** Consecutive failures that open the breaker, by default. */
    public static final int DEFAULT_BREAKER_FAILURES = 3;

    /** How long an open breaker turns calls away before it probes Redis, by default. */
    public static final Duration DEFAULT_BREAKER_OPEN = Duration.ofSeconds(1);

    /** How many ids' refusals are remembered locally, by default. */
    public static final int DEFAULT_REFUSAL_CACHE_SLOTS = 4096;

    final List<Limit> limits = new ArrayList<>();
    boolean countRefusedAttempts;
    FailurePolicy failurePolicy = FailurePolicy.DEFAULT;

    /** Null unless set: then {@link FailurePolicy#LOCAL} builds one with the same limits. */
    KeyedRateLimiter<String> fallback;

    int breakerFailures = DEFAULT_BREAKER_FAILURES;
    Duration breakerOpen = DEFAULT_BREAKER_OPEN;
    Ticker breakerTicker = Ticker.system();
    int refusalCacheSlots = DEFAULT_REFUSAL_CACHE_SLOTS;
    boolean batching = true;
    Clock calendarClock = Clock.systemUTC();

    private Builder(RedisBackend backend) {
      super(backend);
    }

    /**
     * Adds a limit; a request is granted only if every limit allows it. A sliding window's window
     * and precision must be whole microseconds (an exact limit is tracked at one microsecond); a
     * calendar quota ({@link Limit#calendar}) counts in one key per id, see {@link
     * #calendarClock(Clock)} for the clock that decides its periods.
     *
     * @throws IllegalArgumentException if {@code limit} is null, or a sliding window whose window
     *     or precision is not a whole number of microseconds, or whose window is 2^50 µs or longer
     */
    public Builder limit(Limit limit) {
      if (limit == null) {
        throw new IllegalArgumentException("limit must not be null");
      }
      LimiterScript.check(limit);
      limits.add(limit);
      return this;
    }

    /**
     * Adds each of {@code limits}.
     *
     * @throws IllegalArgumentException if {@code limits} is null or an element is invalid as in
     *     {@link #limit(Limit)}
     */
    public Builder limits(Collection<Limit> limits) {
      if (limits == null) {
        throw new IllegalArgumentException("limits must not be null");
      }
      limits.forEach(this::limit);
      return this;
    }

    /**
     * Sets whether refused attempts count as if granted (penalty mode); off by default. Limiters
     * that differ in this keep separate keys.
     */
    public Builder countRefusedAttempts(boolean countRefusedAttempts) {
      this.countRefusedAttempts = once("countRefusedAttempts", countRefusedAttempts);
      return this;
    }

    /**
     * Sets what answers while Redis fails (an error, no answer within the command timeout, or an
     * open circuit breaker), {@link FailurePolicy#LOCAL} by default: {@link FailurePolicy#LOCAL}
     * asks an in-process limiter (by default one with this limiter's limits, clock and penalty
     * mode, so each instance then limits on its own; see {@link #fallback}); {@link
     * FailurePolicy#ALLOW} grants, with {@code remaining = 0} since the true figure is unknown;
     * {@link FailurePolicy#REFUSE} refuses, with a {@code retryAfter} of the time until the breaker
     * next probes Redis (at least one millisecond).
     *
     * @throws IllegalArgumentException if {@code failurePolicy} is null
     * @throws IllegalStateException if another policy was set
     */
    public Builder failurePolicy(FailurePolicy failurePolicy) {
      if (failurePolicy == null) {
        throw new IllegalArgumentException("failurePolicy must not be null");
      }
      this.failurePolicy = once("failurePolicy", failurePolicy);
      return this;
    }

    /**
     * Sets the in-process limiter that decides under {@link FailurePolicy#LOCAL} while Redis fails,
     * instead of one with this limiter's limits: for example one with each instance's share of the
     * limits, so that a fleet of {@code n} instances does not grant up to {@code n} times a limit
     * while Redis is down. It is asked with the id as given, as the resolver of plans is, so that a
     * fallback with the same plans finds the same plan for every id (an in-process limiter stores
     * {@link LimiterKeys#bounded(String)} of it, so a long id costs it no more than a short one).
     *
     * @throws IllegalArgumentException if {@code fallback} is null
     * @throws IllegalStateException if another fallback was set
     */
    public Builder fallback(KeyedRateLimiter<String> fallback) {
      if (fallback == null) {
        throw new IllegalArgumentException("fallback must not be null");
      }
      this.fallback = once("fallback", fallback);
      return this;
    }

    /**
     * Sets the circuit breaker: after {@code consecutiveFailures} failed calls in a row, calls go
     * straight to the failure policy for {@code openFor}; then one call probes Redis. Defaults: 3
     * failures, 1 s.
     *
     * @throws IllegalArgumentException if {@code consecutiveFailures} is not positive or {@code
     *     openFor} is null or not positive
     */
    public Builder circuitBreaker(int consecutiveFailures, Duration openFor) {
      if (consecutiveFailures <= 0) {
        throw new IllegalArgumentException(
            "consecutiveFailures must be positive, was " + consecutiveFailures);
      }
      if (openFor == null || openFor.isNegative() || openFor.isZero()) {
        throw new IllegalArgumentException("openFor must be positive, was " + openFor);
      }
      once("circuitBreaker", consecutiveFailures + " failures, open for " + openFor);
      this.breakerFailures = consecutiveFailures;
      this.breakerOpen = openFor;
      return this;
    }

    /**
     * How many ids' refusals to remember locally (rounded up to a power of two; 0 turns it off).
     * When Redis refuses an id because a limit of it has no permit left, nothing but time can free
     * one: no instance can be granted anything for that id until the limit's oldest stored run
     * leaves its window. Until then this limiter refuses the id without a round trip, with the same
     * answer, and for {@link RedisRateLimiter#decide decide} the same figures counted down, that
     * Redis would give (with server time, the refusal is kept a round trip shorter and the figures
     * are never early, as long as the Redis server's clock runs at the local clock's rate without
     * steps; the figures also assume that every limiter sharing these keys has the same limits). A
     * client hammering a full id then costs Redis nothing. The table is direct-mapped: ids that
     * share a slot replace each other, so memory stays at {@code slots} references plus one small
     * entry per remembered id. Off when refused attempts count, since those must be recorded. If
     * the id's keys are deleted in Redis behind the limiter's back, a remembered refusal lasts at
     * most the longest window plus its precision. Default {@value #DEFAULT_REFUSAL_CACHE_SLOTS}.
     *
     * @throws IllegalArgumentException if {@code slots} is negative or above 2^20
     */
    public Builder refusalCache(int slots) {
      if (slots < 0 || slots > RefusalCache.MAX_SLOTS) {
        throw new IllegalArgumentException(
            "slots must be between 0 and " + RefusalCache.MAX_SLOTS + ", was " + slots);
      }
      this.refusalCacheSlots = once("refusalCache", slots);
      return this;
    }

    /**
     * Whether requests that wait at the same moment share one script call (default on). Under load,
     * many threads calling one limiter then cost one round trip per call instead of one per
     * request; a lone request is sent at once, alone. Each request is still decided on its own,
     * atomically, as if sent alone in the order the script takes them. Not done on Cluster, where a
     * call holds the keys of one slot only. Turn it off behind a proxy that requires the keys of a
     * script call to share one slot (some Redis proxies do, even in front of a single server).
     */
    public Builder batching(boolean batching) {
      this.batching = once("batching", batching);
      return this;
    }

    /**
     * Sets the wall clock of the calendar quotas' periods, {@link Clock#systemUTC()} by default,
     * read once when the limiter is built: the local clock then measures time from that reading.
     * With the server's {@code TIME} it only chooses which periods go with a call (those around the
     * local estimate of now: the one before, its own and the next); the server's clock decides
     * which one a request counts in, and a call whose server time falls outside the periods sent
     * (the clocks differ by more than a period) is not decided, and the failure policy answers.
     * With {@link #clientTime(Ticker)} it gives the calendar time of the ticker's first reading, as
     * the in-process limiters' {@code calendarClock} does.
     *
     * @throws IllegalArgumentException if {@code clock} is null
     * @throws IllegalStateException if another clock was set
     */
    public Builder calendarClock(Clock clock) {
      this.calendarClock = once("calendarClock", Checks.requireNonNull(clock, "clock"));
      return this;
    }

    /** Replaces the breaker's clock; for tests that drive a fake clock. */
    Builder breakerTicker(Ticker ticker) {
      this.breakerTicker = ticker;
      return this;
    }

    /**
     * Builds the limiter; with client time, reads the ticker once as the origin.
     *
     * @throws IllegalArgumentException if no limit was added, or a fallback was set while the
     *     failure policy is not {@link FailurePolicy#LOCAL}
     */
    public RedisRateLimiter build() {
      return build(null);
    }

    /**
     * Builds a limiter whose ids get their plan's limits, as {@code plans} says, and this builder's
     * limits when on no plan. The plan is asked for on every call, with the id as given (the limits
     * go to Redis with each call). A limit's key then names its window and precision, not its
     * permits, so an id whose plan changes keeps the counts of the windows both plans have; a
     * window new to the id starts empty (Redis keeps no record of the id's earlier limits). A plan
     * whose limit the script cannot take (a sliding window not in whole microseconds) fails the
     * calls of its ids with {@link IllegalArgumentException}. The local fallback asks {@code plans}
     * with the id as given too.
     *
     * @param plans the resolver, or null for none
     * @throws IllegalArgumentException as {@link #build()}
     */
    public RedisRateLimiter build(PlanResolver<String> plans) {
      if (limits.isEmpty()) {
        throw new IllegalArgumentException("limits: at least one limit is required");
      }
      if (fallback != null && failurePolicy != FailurePolicy.LOCAL) {
        throw new IllegalArgumentException(
            "fallback is asked only under FailurePolicy.LOCAL, but failurePolicy is "
                + failurePolicy);
      }
      return new RedisRateLimiter(
          this, plans, failurePolicy == FailurePolicy.LOCAL ? localFallback(plans) : null);
    }

    /**
     * The fallback set, or an in-process limiter with these limits (and plans), clock and penalty
     * mode.
     */
    private KeyedRateLimiter<String> localFallback(PlanResolver<String> plans) {
      if (fallback != null) {
        return fallback;
      }
      return KeyedRateLimiter.builder()
          .limits(limits)
          .countRefusedAttempts(countRefusedAttempts)
          .ticker(clientTime != null ? clientTime : Ticker.system())
          .calendarClock(calendarClock)
          .build(plans);
    }
  }
}
