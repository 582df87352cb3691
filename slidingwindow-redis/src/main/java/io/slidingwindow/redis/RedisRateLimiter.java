package io.slidingwindow.redis;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.internal.Permits;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * A sliding-window rate limiter whose state lives in Redis, shared by every instance that uses the
 * same limits, key prefix and Redis.
 *
 * <p>Guarantee. The algorithm is the in-process limiter's (see {@link Limit}), run by a Lua script
 * ({@code META-INF/slidingwindow/limiter.lua}) that decides each request atomically: for every
 * interval {@code [t, t + W)} of the clock and every limit, the permits granted to an id with
 * timestamps in that interval sum to at most {@code N}. All limits of an id are checked and
 * recorded together for each request, and only granted permits count unless {@link Builder#countRefusedAttempts(boolean)} is on.
 * A refusal happens only where an exact sliding log over {@code W + precision} would refuse too.
 *
 * <p>Time and units. By default the clock is the Redis server's {@code TIME}, read inside the
 * script, so the clocks of application servers do not matter. The script works in microseconds:
 * every window and precision must be a whole number of microseconds, and an exact limit ({@link
 * Limit#exact}) is tracked at one microsecond. {@link Builder#clientTime(Ticker)} uses a local
 * ticker instead, measured from its first reading: meant for a single instance and for tests.
 *
 * <p>Keys and memory. Each limit of an id is one Redis LIST named {@code
 * <prefix>:{<id tag>}:<N>:<W µs>:<p µs>} ({@code :r} appended when refused attempts count): a
 * 48-byte header that holds the newest (bucket, running total) run, then one run per older
 * non-empty bucket, stored as an offset from a reference bucket and a running total: at most
 * {@code min(N, ceil(W / p) + 1)} runs, about 7 bytes each. The hash tag is an
 * encoding of the id, so all keys of a call share one Cluster slot whatever bytes the id holds;
 * ids are limited to {@link #MAX_ID_BYTES} bytes. A key expires the longest window plus its
 * precision after its newest run began, by which time that run has left the window (with client
 * time, no sooner than a minute: that ticker need not run at Redis's speed). Server work per request
 * is amortised O(1) per limit; a refusal from {@link #decide} also walks the runs that must leave
 * before the request fits (at most {@code permits} runs when only grants count).
 *
 * <p>Refusals without a round trip. When Redis refuses an id because one of its limits has no
 * permit left, nothing but time can free one, so the limiter remembers the refusal until that
 * limit's oldest run leaves and meanwhile refuses the id locally, with the answer (and figures)
 * Redis would give; see {@link Builder#refusalCache(int)}. Not done when refused attempts count.
 *
 * <p>Requests sharing a call. On standalone Redis and Sentinel, requests to one limiter that wait
 * at the same moment go to Redis together, in one script call that decides them one after the
 * other (see {@link Builder#batching(boolean)}): under load a call then costs one round trip per
 * batch instead of one per request. On Cluster every request is a call of its own.
 *
 * <p>Failures. No Redis exception escapes a call: when Redis errs, does not answer within the
 * command timeout, or the circuit breaker is open, the {@link FailurePolicy} decides. A call that
 * timed out is never retried, since it may have run.
 *
 * <p>Thread-safe; the synchronous methods block for at most the command timeout.
 */
public final class RedisRateLimiter implements KeyedRateLimiter<String> {

  /** The most bytes an id may take (UTF-8; UTF-16 for strings with unpaired surrogates). */
  public static final int MAX_ID_BYTES = Keys.MAX_ID_BYTES;

  /** The default command timeout. */
  public static final Duration DEFAULT_COMMAND_TIMEOUT = Duration.ofMillis(50);

  /** The default key prefix. */
  public static final String DEFAULT_KEY_PREFIX = "sw";

  /** Windows and precisions must be below 2^50 microseconds (35 years), so sums stay exact. */
  static final long MAX_WINDOW_MICROS = 1L << 50;

  /**
   * With client time the ticker need not run at the speed of Redis's clock (a test's fake ticker
   * does not), so keys live at least this long after their newest run began.
   */
  static final long CLIENT_TIME_MIN_TTL_MILLIS = 60_000;

  private static final System.Logger LOG = System.getLogger(RedisRateLimiter.class.getName());


  private final RedisBackend backend;
  private final List<Limit> limits;
  private final String prefix;
  private final String[] suffixes;
  private final String[] argsTemplate;
  private final long largestGrantable;
  private final boolean countRefused;
  private final Ticker clientTime;
  /** The clock of the refusal cache: the client-time ticker, or System.nanoTime. */
  private final Ticker localTime;
  private final long origin;
  /** Null when off, or when refused attempts count. */
  private final RefusalCache refusals;
  /** Null on Cluster, or when turned off. */
  private final Batcher batcher;
  private final long timeoutNanos;
  private final FailurePolicy policy;
  private final CircuitBreaker breaker;
  private final Limit smallest;
  private final Duration longestWindow;

  private RedisRateLimiter(Builder b) {
    this.backend = b.backend;
    this.limits = List.copyOf(b.limits);
    this.prefix = b.keyPrefix;
    this.countRefused = b.countRefusedAttempts;
    this.suffixes = new String[limits.size()];
    this.argsTemplate = new String[3 + 3 * limits.size()];
    argsTemplate[0] = countRefused ? "1" : "0";
    argsTemplate[2] = Integer.toString(limits.size());
    long ttlMicros = 0;
    Limit least = limits.get(0);
    Limit longest = limits.get(0);
    for (int i = 0; i < limits.size(); i++) {
      Limit limit = limits.get(i);
      long windowMicros = windowMicros(limit);
      long precisionMicros = precisionMicros(limit);
      String suffix =
          limit.permits() + ":" + windowMicros + ":" + precisionMicros + (countRefused ? ":r" : "");
      // The same limit added twice keeps two lists, or one list would record every grant twice.
      suffixes[i] = Arrays.asList(suffixes).contains(suffix) ? suffix + ":" + i : suffix;
      argsTemplate[3 + 3 * i] = Long.toString(limit.permits());
      argsTemplate[4 + 3 * i] = Long.toString(windowMicros);
      argsTemplate[5 + 3 * i] = Long.toString(precisionMicros);
      ttlMicros = Math.max(ttlMicros, windowMicros + precisionMicros);
      if (limit.permits() < least.permits()) {
        least = limit;
      }
      if (limit.windowNanos() > longest.windowNanos()) {
        longest = limit;
      }
    }
    long ttlMillis = (ttlMicros + 999) / 1000;
    argsTemplate[1] = Long.toString(b.clientTime == null ? ttlMillis : Math.max(ttlMillis, CLIENT_TIME_MIN_TTL_MILLIS));
    this.batcher = b.batching && !backend.isCluster() ? new Batcher(backend, argsTemplate) : null;
    this.largestGrantable = Permits.largestGrantable(limits);
    this.smallest = least;
    this.longestWindow = longest.window();
    this.clientTime = b.clientTime;
    this.localTime = clientTime == null ? Ticker.system() : clientTime;
    this.origin = localTime.read();
    this.refusals = countRefused || b.refusalCacheSlots == 0 ? null : new RefusalCache(b.refusalCacheSlots);
    this.timeoutNanos = b.commandTimeout.toNanos();
    this.policy = b.failurePolicy;
    this.breaker = new CircuitBreaker(b.breakerFailures, b.breakerOpen.toNanos(), b.breakerTicker);
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
   * @throws IllegalArgumentException if {@code id} is null or longer than {@link #MAX_ID_BYTES}
   *     bytes, or {@code permits} is not positive or exceeds a limit's {@code N}
   */
  @Override
  public boolean tryAcquire(String id, long permits) {
    check(id, permits);
    long now = localMicros();
    if (refusals != null && refusals.find(id, now) != null) {
      return false;
    }
    List<Object> reply = callSync(keys(id), permits, false, now);
    if (reply == null) {
      return onFailure(id, permits).allowed();
    }
    remember(id, permits, reply, false, now);
    return isAllowed(reply);
  }

  /**
   * As {@link #tryAcquire(String, long)}, with the figures of the binding limit: remaining permits,
   * the exact retryAfter, resetAfter. Times are whole microseconds.
   *
   * @throws IllegalArgumentException as {@link #tryAcquire(String, long)}
   */
  @Override
  public Decision decide(String id, long permits) {
    check(id, permits);
    long now = localMicros();
    Decision cached = cachedDecision(id, permits, now);
    if (cached != null) {
      return cached;
    }
    List<Object> reply = callSync(keys(id), permits, true, now);
    if (reply == null) {
      return onFailure(id, permits);
    }
    remember(id, permits, reply, true, now);
    return toDecision(reply);
  }

  /**
   * As {@link #tryAcquire(String, long)}, without blocking. The stage never completes
   * exceptionally for a Redis failure: the failure policy answers instead.
   *
   * @throws IllegalArgumentException at once, as {@link #tryAcquire(String, long)}
   */
  public CompletionStage<Boolean> tryAcquireAsync(String id, long permits) {
    check(id, permits);
    long now = localMicros();
    if (refusals != null && refusals.find(id, now) != null) {
      return CompletableFuture.completedFuture(false);
    }
    return callAsync(keys(id), id, permits, false, now, RedisRateLimiter::isAllowed, Decision::allowed);
  }

  /**
   * As {@link #decide(String, long)}, without blocking. The stage never completes exceptionally
   * for a Redis failure: the failure policy answers instead.
   *
   * @throws IllegalArgumentException at once, as {@link #tryAcquire(String, long)}
   */
  public CompletionStage<Decision> decideAsync(String id, long permits) {
    check(id, permits);
    long now = localMicros();
    Decision cached = cachedDecision(id, permits, now);
    if (cached != null) {
      return CompletableFuture.completedFuture(cached);
    }
    return callAsync(keys(id), id, permits, true, now, this::toDecision, d -> d);
  }

  @Override
  public List<Limit> limits() {
    return limits;
  }

  /**
   * Runs one call and returns the script's raw reply, {@code [allowed, now µs]}: for tests that
   * check the server timestamps of grants. Fails when Redis fails (no policy).
   */
  long[] tryAcquireWithTime(String id, long permits) throws Exception {
    List<Object> reply =
        backend.run(Script.LIMITER, checkedKeys(id, permits), args(permits, false, localMicros())).get(10, TimeUnit.SECONDS);
    return new long[] {(Long) reply.get(0), (Long) reply.get(1)};
  }

  /** The Redis keys of {@code id}, one per limit, in the order of {@link #limits()}. */
  List<String> keysOf(String id) {
    return List.of(keys(id));
  }

  boolean isBreakerOpen() {
    return breaker.isOpen();
  }

  /**
   * Checks a request before anything else, so that a refusal answered from the cache builds no
   * keys; an id too long to be keyed is refused when its keys are built, and never cached.
   */
  private void check(String id, long permits) {
    if (id == null) {
      throw new IllegalArgumentException("key must not be null");
    }
    Permits.check(permits, largestGrantable);
  }

  private String[] checkedKeys(String id, long permits) {
    check(id, permits);
    return keys(id);
  }

  /** The Redis keys of {@code id}, one per limit. */
  private String[] keys(String id) {
    String tag = Keys.tagged(prefix, id);
    String[] keys = new String[suffixes.length];
    for (int i = 0; i < keys.length; i++) {
      keys[i] = tag + suffixes[i];
    }
    return keys;
  }

  /** The script's arguments for one request. */
  private String[] args(long permits, boolean figures, long nowMicros) {
    String[] args = Arrays.copyOf(argsTemplate, argsTemplate.length + 2);
    args[argsTemplate.length] = permitsAndFigures(permits, figures);
    args[argsTemplate.length + 1] = scriptNow(nowMicros);
    return args;
  }

  private static String permitsAndFigures(long permits, boolean figures) {
    return Long.toString(2 * permits + (figures ? 1 : 0));
  }

  private String scriptNow(long nowMicros) {
    return clientTime == null ? "" : Long.toString(nowMicros);
  }

  /** Sends one request, in a call of its own or with others waiting at the same moment. */
  private CompletableFuture<List<Object>> send(String[] keys, long permits, boolean figures, long nowMicros) {
    if (batcher == null) {
      return backend.run(Script.LIMITER, keys, args(permits, figures, nowMicros));
    }
    return batcher.submit(
        new Batcher.Request(keys, permitsAndFigures(permits, figures), scriptNow(nowMicros), figures ? 7 : 3));
  }

  /** The local clock in microseconds since the limiter was built; with client time, the script's. */
  private long localMicros() {
    return Math.floorDiv(localTime.read() - origin, 1000L);
  }

  /**
   * Remembers a refusal that the script says holds for a while. With client time the script's
   * clock is the local one. With server time the script ran somewhere between the call's start
   * ({@code sentMicros}) and now, so the refusal is kept until the start plus its hold, less a
   * microsecond for rounding (never longer than Redis would refuse), and the figures are taken as of
   * now plus a microsecond (so served figures are never early).
   */
  private void remember(String id, long permits, List<Object> reply, boolean figures, long sentMicros) {
    if (refusals == null) {
      return;
    }
    long hold = (Long) reply.get(figures ? 6 : 2);
    if (hold <= 0) {
      return;
    }
    long until;
    long ref;
    if (clientTime != null) {
      ref = (Long) reply.get(1);
      until = ref + hold;
    } else {
      ref = localMicros() + 1;
      until = sentMicros + hold - 1;
    }
    refusals.put(
        figures
            ? new RefusalCache.Entry(
                id, until, permits, ref, (Long) reply.get(3), (Long) reply.get(4), ((Long) reply.get(5)).intValue() - 1)
            : new RefusalCache.Entry(id, until, 0, ref, 0, 0, 0));
  }

  /**
   * The decision for a refusal remembered with figures for the same permits, counted down to
   * {@code nowMicros}, or null. The binding limit stays full until the entry's end, so its
   * remaining stays 0 and both durations only count down.
   */
  private Decision cachedDecision(String id, long permits, long nowMicros) {
    if (refusals == null) {
      return null;
    }
    RefusalCache.Entry e = refusals.find(id, nowMicros);
    if (e == null || e.permits() != permits) { // permits are positive: 0 marks no figures
      return null;
    }
    long elapsed = nowMicros - e.refMicros();
    return new Decision(
        false,
        0,
        Duration.ofNanos(Math.max(1, e.retryMicros() - elapsed) * 1000),
        Duration.ofNanos(Math.max(0, e.resetMicros() - elapsed) * 1000),
        limits.get(e.binding()));
  }

  /** The script's reply, or null when Redis failed (the breaker has been told). */
  private List<Object> callSync(String[] keys, long permits, boolean figures, long nowMicros) {
    if (!breaker.tryPass()) {
      return null;
    }
    try {
      List<Object> reply;
      if (batcher == null) {
        reply = backend.runSync(Script.LIMITER, keys, args(permits, figures, nowMicros), timeoutNanos);
      } else {
        reply = backend.await(send(keys, permits, figures, nowMicros), timeoutNanos);
      }
      if (isUndecided(reply)) {
        failed(new IllegalStateException(String.valueOf(reply.get(2))));
        return null;
      }
      breaker.onSuccess();
      return reply;
    } catch (TimeoutException | RuntimeException e) {
      failed(e);
    } catch (ExecutionException e) {
      failed(RedisBackend.unwrap(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failed(e);
    }
    return null;
  }

  /** Whether the script could not decide the request (a key holds something else). */
  private static boolean isUndecided(List<Object> reply) {
    return ((Long) reply.get(0)) < 0;
  }

  private <T> CompletionStage<T> callAsync(
      String[] keys,
      String id,
      long permits,
      boolean figures,
      long sentMicros,
      Function<List<Object>, T> convert,
      Function<Decision, T> fromPolicy) {
    if (!breaker.tryPass()) {
      return CompletableFuture.completedFuture(fromPolicy.apply(onFailure(id, permits)));
    }
    CompletableFuture<List<Object>> future;
    try {
      future = send(keys, permits, figures, sentMicros);
    } catch (RuntimeException e) {
      failed(e);
      return CompletableFuture.completedFuture(fromPolicy.apply(onFailure(id, permits)));
    }
    return backend
        .within(future, timeoutNanos)
        .handle(
            (reply, error) -> {
              if (error == null && !isUndecided(reply)) {
                breaker.onSuccess();
                remember(id, permits, reply, figures, sentMicros);
                return convert.apply(reply);
              }
              failed(error == null ? new IllegalStateException(String.valueOf(reply.get(2))) : RedisBackend.unwrap(error));
              return fromPolicy.apply(onFailure(id, permits));
            });
  }

  private void failed(Throwable error) {
    breaker.onFailure();
    LOG.log(Level.DEBUG, "Redis call failed; the failure policy " + policy + " decides", error);
  }

  private Decision onFailure(String id, long permits) {
    switch (policy.kind()) {
      case OPEN:
        return new Decision(true, 0, Duration.ZERO, Duration.ZERO, smallest);
      case CLOSED:
        long retry = Math.max(TimeUnit.MILLISECONDS.toNanos(1), breaker.nanosUntilProbe());
        return new Decision(false, 0, Duration.ofNanos(retry), longestWindow, smallest);
      default:
        return policy.fallback().decide(id, permits);
    }
  }

  private static Boolean isAllowed(List<Object> reply) {
    return ((Long) reply.get(0)) == 1L;
  }

  private Decision toDecision(List<Object> reply) {
    boolean allowed = (Long) reply.get(0) == 1L;
    long remaining = (Long) reply.get(2);
    long retryMicros = (Long) reply.get(3);
    long resetMicros = (Long) reply.get(4);
    int binding = ((Long) reply.get(5)).intValue() - 1;
    return new Decision(
        allowed,
        remaining,
        Duration.ofNanos(retryMicros * 1000),
        Duration.ofNanos(resetMicros * 1000),
        limits.get(binding));
  }

  private static long windowMicros(Limit limit) {
    long nanos = limit.windowNanos();
    if (nanos % 1000 != 0 || nanos / 1000 >= MAX_WINDOW_MICROS) {
      throw new IllegalArgumentException(
          "window must be a whole number of microseconds below 2^50, was " + limit.window() + " in " + limit);
    }
    return nanos / 1000;
  }

  private static long precisionMicros(Limit limit) {
    if (limit.isExact()) {
      return 1;
    }
    long nanos = limit.precisionNanos();
    if (nanos % 1000 != 0) {
      throw new IllegalArgumentException(
          "precision must be a whole number of microseconds (or exact), was "
              + limit.precision()
              + " in "
              + limit);
    }
    return nanos / 1000;
  }

  @Override
  public String toString() {
    return "RedisRateLimiter" + limits + " on " + backend;
  }

  /** Builds {@link RedisRateLimiter}s. Not thread-safe. */
  public static final class Builder {

    /** Consecutive failures that open the breaker, by default. */
    public static final int DEFAULT_BREAKER_FAILURES = 3;

    /** How long an open breaker turns calls away before it probes Redis, by default. */
    public static final Duration DEFAULT_BREAKER_OPEN = Duration.ofSeconds(1);

    /** How many ids' refusals are remembered locally, by default. */
    public static final int DEFAULT_REFUSAL_CACHE_SLOTS = 4096;

    private final RedisBackend backend;
    private final List<Limit> limits = new ArrayList<>();
    private String keyPrefix = DEFAULT_KEY_PREFIX;
    private boolean countRefusedAttempts;
    private Ticker clientTime;
    private Duration commandTimeout = DEFAULT_COMMAND_TIMEOUT;
    private FailurePolicy failurePolicy = FailurePolicy.failOpen();
    private int breakerFailures = DEFAULT_BREAKER_FAILURES;
    private Duration breakerOpen = DEFAULT_BREAKER_OPEN;
    private Ticker breakerTicker = Ticker.system();
    private int refusalCacheSlots = DEFAULT_REFUSAL_CACHE_SLOTS;
    private boolean batching = true;

    private Builder(RedisBackend backend) {
      this.backend = backend;
    }

    /**
     * Adds a limit; a request is granted only if every limit allows it. Its window and precision
     * must be whole microseconds (an exact limit is tracked at one microsecond).
     *
     * @throws IllegalArgumentException if {@code limit} is null, or its window or precision is not
     *     a whole number of microseconds, or the window is 2^50 µs or longer
     */
    public Builder limit(Limit limit) {
      if (limit == null) {
        throw new IllegalArgumentException("limit must not be null");
      }
      windowMicros(limit);
      precisionMicros(limit);
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
     * Sets the first part of every key, {@value RedisRateLimiter#DEFAULT_KEY_PREFIX} by default.
     *
     * @throws IllegalArgumentException if {@code keyPrefix} is null, empty, or holds a brace or an
     *     unpaired surrogate
     */
    public Builder keyPrefix(String keyPrefix) {
      this.keyPrefix = Keys.checkPrefix(keyPrefix);
      return this;
    }

    /**
     * Sets whether refused attempts count as if granted (penalty mode); off by default. Limiters
     * that differ in this keep separate keys.
     */
    public Builder countRefusedAttempts(boolean countRefusedAttempts) {
      this.countRefusedAttempts = countRefusedAttempts;
      return this;
    }

    /**
     * Uses {@code ticker}, truncated to microseconds since its first reading, instead of the
     * server's {@code TIME}. Instances with different tickers do not agree on time: use this for
     * a single instance and for tests only.
     *
     * @throws IllegalArgumentException if {@code ticker} is null
     */
    public Builder clientTime(Ticker ticker) {
      this.clientTime = Arguments.ticker(ticker);
      return this;
    }

    /**
     * Sets how long a call waits for Redis before the failure policy answers, {@code 50 ms} by
     * default.
     *
     * @throws IllegalArgumentException if {@code commandTimeout} is null, not positive, or longer
     *     than one hour
     */
    public Builder commandTimeout(Duration commandTimeout) {
      this.commandTimeout = Arguments.commandTimeout(commandTimeout);
      return this;
    }

    /**
     * Sets what answers while Redis fails, {@link FailurePolicy#failOpen()} by default.
     *
     * @throws IllegalArgumentException if {@code failurePolicy} is null
     */
    public Builder failurePolicy(FailurePolicy failurePolicy) {
      if (failurePolicy == null) {
        throw new IllegalArgumentException("failurePolicy must not be null");
      }
      this.failurePolicy = failurePolicy;
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
      this.breakerFailures = consecutiveFailures;
      this.breakerOpen = openFor;
      return this;
    }

    /**
     * How many ids' refusals to remember locally (rounded up to a power of two; 0 turns it off).
     * When Redis refuses an id because a limit of it has no permit left, nothing but time can
     * free one: no instance can be granted anything for that id until the limit's oldest stored
     * run leaves its window. Until then this limiter refuses the id without a round trip, with
     * the same answer, and for {@link RedisRateLimiter#decide decide} the same figures counted
     * down, that Redis would give (with server time, the refusal is kept a round trip shorter and
     * the figures are never early, as long as the Redis server's clock runs at the local clock's
     * rate without steps; the figures also assume that every limiter sharing these keys has the
     * same limits). A client hammering a full id then costs Redis nothing. The
     * table is direct-mapped: ids that share a slot replace each other, so memory stays at {@code
     * slots} references plus one small entry per remembered id. Off when refused attempts count,
     * since those must be recorded. If the id's keys are deleted in Redis behind the limiter's
     * back, a remembered refusal lasts at most the longest window plus its precision. Default
     * {@value #DEFAULT_REFUSAL_CACHE_SLOTS}.
     *
     * @throws IllegalArgumentException if {@code slots} is negative or above 2^20
     */
    public Builder refusalCache(int slots) {
      if (slots < 0 || slots > RefusalCache.MAX_SLOTS) {
        throw new IllegalArgumentException(
            "slots must be between 0 and " + RefusalCache.MAX_SLOTS + ", was " + slots);
      }
      this.refusalCacheSlots = slots;
      return this;
    }

    /**
     * Whether requests that wait at the same moment share one script call (default on). Under
     * load, many threads calling one limiter then cost one round trip per call instead of one per
     * request; a lone request is sent at once, alone. Each request is still decided on its own,
     * atomically, as if sent alone in the order the script takes them. Not done on Cluster, where a
     * call holds the keys of one slot only. Turn it off behind a proxy that requires the keys of
     * a script call to share one slot (some Redis proxies do, even in front of a single server).
     */
    public Builder batching(boolean batching) {
      this.batching = batching;
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
     * @throws IllegalArgumentException if no limit was added
     */
    public RedisRateLimiter build() {
      if (limits.isEmpty()) {
        throw new IllegalArgumentException("limits: at least one limit is required");
      }
      return new RedisRateLimiter(this);
    }
  }
}
