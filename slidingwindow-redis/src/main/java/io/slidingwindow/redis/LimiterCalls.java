package io.slidingwindow.redis;

import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Ticker;
import io.slidingwindow.internal.Permits;
import io.slidingwindow.redis.Layouts.Layout;
import java.lang.System.Logger.Level;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * What a {@link RedisRateLimiter} does with a checked request: answer it from the refusal cache, or
 * send it to Redis (alone or batched) through the shared {@link ScriptCalls}, and turn the reply
 * into a decision, or a failure into the failure policy's answer (telling the breaker). Synchronous
 * and asynchronous requests take the same stage and end in {@link #accepted}. Every method takes
 * the id's stored key ({@code LimiterKeys.bounded}), already checked, as are the permits; a request
 * also takes the id as given, which the fallback is asked with, as the resolver of plans was (asked
 * with the stored key, a long id would lose its plan there). Thread-safe.
 */
final class LimiterCalls {

  private static final System.Logger LOG = System.getLogger(RedisRateLimiter.class.getName());

  private final ScriptCalls calls;
  private final String prefix;
  private final Layouts layouts;
  private final Ticker clientTime;

  /** The local clock (of the refusal cache too): the client-time ticker, or System.nanoTime. */
  private final ScriptTime time;

  /** Null when off, or when refused attempts count. */
  private final RefusalCache refusals;

  private final long timeoutNanos;
  private final FailurePolicy policy;

  /** The in-process limiter that decides under {@link FailurePolicy#LOCAL}; null otherwise. */
  private final KeyedRateLimiter<String> fallback;

  private final CircuitBreaker breaker;

  /**
   * The limiter script, read when the limiter is built (its class loads it from the jar), so that
   * the first call does not read a file on the thread that makes it, possibly an event loop.
   */
  private final Script limiterScript = Script.LIMITER;

  /**
   * The calls of a limiter with {@code layouts} as {@code b} sets it up, with {@code fallback}
   * deciding under {@link FailurePolicy#LOCAL} (null for the other policies).
   */
  LimiterCalls(
      RedisRateLimiter.Builder b,
      Layouts layouts,
      ScriptTime time,
      KeyedRateLimiter<String> fallback) {
    this.calls = b.backend.calls();
    this.prefix = b.keyPrefix;
    this.layouts = layouts;
    boolean countRefused = b.countRefusedAttempts;
    this.clientTime = b.clientTime;
    this.time = time;
    this.refusals =
        countRefused || b.refusalCacheSlots == 0 ? null : new RefusalCache(b.refusalCacheSlots);
    this.timeoutNanos = b.commandTimeout.toNanos();
    this.policy = b.failurePolicy;
    this.fallback = fallback;
    this.breaker = new CircuitBreaker(b.breakerFailures, b.breakerOpen.toNanos(), b.breakerTicker);
  }

  /** Makes the fallback, if any, ask its resolver again for every id. */
  void refreshFallbackPlans() {
    if (fallback != null) {
      fallback.refreshPlans();
    }
  }

  boolean tryAcquire(Layout layout, String given, String id, long permits) {
    if (permits > layout.largestGrantable) {
      return false;
    }
    long now = localMicros();
    if (refusals != null && refusals.find(id, layout, now) != null) {
      return false;
    }
    List<Object> reply = callSync(layout, keys(layout, id), permits, false, now);
    if (reply == null) {
      return onFailure(layout, given, permits).allowed();
    }
    remember(layout, id, permits, reply, false, now);
    return LimiterScript.isAllowed(reply);
  }

  Decision decide(Layout layout, String given, String id, long permits) {
    return decided(layout, given, id, permits).decision();
  }

  /**
   * A decision, with the script time it was recorded at when Redis made it ({@code atMicros}), or
   * {@code Long.MIN_VALUE} when the refusal cache or the failure policy answered.
   */
  record Decided(Decision decision, long atMicros) {
    boolean byRedis() {
      return atMicros != Long.MIN_VALUE;
    }
  }

  /** As {@link #decide}, with the script time of a decision Redis made: for reservations. */
  Decided decided(Layout layout, String given, String id, long permits) {
    Decision beyond = beyond(layout, permits);
    if (beyond != null) {
      return new Decided(beyond, Long.MIN_VALUE);
    }
    long now = localMicros();
    Decision cached = cachedDecision(layout, id, permits, now);
    if (cached != null) {
      return new Decided(cached, Long.MIN_VALUE);
    }
    List<Object> reply = callSync(layout, keys(layout, id), permits, true, now);
    if (reply == null) {
      return new Decided(onFailure(layout, given, permits), Long.MIN_VALUE);
    }
    remember(layout, id, permits, reply, true, now);
    return new Decided(layout.script.decision(reply), LimiterScript.nowMicros(reply));
  }

  CompletionStage<Boolean> tryAcquireAsync(Layout layout, String given, String id, long permits) {
    if (permits > layout.largestGrantable) {
      return CompletableFuture.completedFuture(false);
    }
    long now = localMicros();
    if (refusals != null && refusals.find(id, layout, now) != null) {
      return CompletableFuture.completedFuture(false);
    }
    return callAsync(
        layout, given, id, permits, false, now, LimiterScript::isAllowed, Decision::allowed);
  }

  CompletionStage<Decision> decideAsync(Layout layout, String given, String id, long permits) {
    Decision beyond = beyond(layout, permits);
    if (beyond != null) {
      return CompletableFuture.completedFuture(beyond);
    }
    long now = localMicros();
    Decision cached = cachedDecision(layout, id, permits, now);
    if (cached != null) {
      return CompletableFuture.completedFuture(cached);
    }
    return callAsync(layout, given, id, permits, true, now, layout.script::decision, d -> d);
  }

  /** As {@link #decided}, without blocking. */
  CompletionStage<Decided> decidedAsync(Layout layout, String given, String id, long permits) {
    Decision beyond = beyond(layout, permits);
    if (beyond != null) {
      return CompletableFuture.completedFuture(new Decided(beyond, Long.MIN_VALUE));
    }
    long now = localMicros();
    Decision cached = cachedDecision(layout, id, permits, now);
    if (cached != null) {
      return CompletableFuture.completedFuture(new Decided(cached, Long.MIN_VALUE));
    }
    return callAsync(
        layout,
        given,
        id,
        permits,
        true,
        now,
        reply -> new Decided(layout.script.decision(reply), LimiterScript.nowMicros(reply)),
        d -> new Decided(d, Long.MIN_VALUE));
  }

  /** Forgets a remembered refusal of {@code id}, after its counts were reset or refunded. */
  void forgetRefusal(String id) {
    if (refusals != null) {
      refusals.forget(id);
    }
  }

  boolean isBreakerOpen() {
    return breaker.isOpen();
  }

  /** Runs one call without cache or policy: {@code [allowed, now µs]}. */
  long[] tryAcquireWithTime(String id, long permits) throws Exception {
    Layout layout = layouts.defaults();
    String[] keys = keys(layout, id);
    List<Object> reply =
        calls
            .run(limiterScript, keys, layout.script.args(permits, false, scriptNow(localMicros())))
            .get(10, TimeUnit.SECONDS);
    return new long[] {(Long) reply.get(0), LimiterScript.nowMicros(reply)};
  }

  /** The Redis keys of the stored key {@code id}, one per limit of {@code layout}, in order. */
  String[] keys(Layout layout, String id) {
    return layout.script.keys(Keys.taggedStored(prefix, id));
  }

  /** The script's time argument for the local time {@code nowMicros}. */
  String scriptNow(long nowMicros) {
    return LimiterScript.now(clientTime != null, nowMicros);
  }

  /** Sends one request, in a call of its own or with others waiting at the same moment. */
  private CompletableFuture<List<Object>> send(
      Layout layout, String[] keys, long permits, boolean figures, long nowMicros) {
    if (layout.batcher == null) {
      return calls.run(
          limiterScript, keys, layout.script.args(permits, figures, scriptNow(nowMicros)));
    }
    return layout.batcher.submit(
        new Batcher.Request(
            keys,
            LimiterScript.permitsAndFigures(permits, figures),
            scriptNow(nowMicros),
            LimiterScript.replySize(figures)));
  }

  /** The local clock in µs since the limiter was built; with client time, the script's clock. */
  long localMicros() {
    return time.localMicros();
  }

  /**
   * Remembers a refusal that the script says holds for a while. With client time the script's clock
   * is the local one. With server time the script ran somewhere between the call's start ({@code
   * sentMicros}) and now, so the refusal is kept until the start plus its hold, less a microsecond
   * for rounding (never longer than Redis would refuse), and the figures are taken as of now plus a
   * microsecond (so served figures are never early).
   */
  private void remember(
      Layout layout,
      String id,
      long permits,
      List<Object> reply,
      boolean figures,
      long sentMicros) {
    if (refusals == null) {
      return;
    }
    long hold = LimiterScript.holdMicros(reply, figures);
    if (hold <= 0) {
      return;
    }
    long until;
    long ref;
    if (clientTime != null) {
      ref = LimiterScript.nowMicros(reply);
      until = ref + hold;
    } else {
      ref = localMicros() + 1;
      until = sentMicros + hold - 1;
    }
    refusals.put(
        figures
            ? new RefusalCache.Entry(
                id,
                layout,
                until,
                permits,
                ref,
                LimiterScript.retryMicros(reply),
                LimiterScript.resetMicros(reply),
                layout.script.binding(reply))
            : new RefusalCache.Entry(id, layout, until, 0, ref, 0, 0, 0));
  }

  /**
   * The refusal of more permits than an id's plan can ever grant, not sent to Redis; null for a
   * request it could grant. Only a limiter with plans lets such a request through {@code stored}.
   */
  private static Decision beyond(Layout layout, long permits) {
    return permits > layout.largestGrantable ? Permits.neverGranted(layout.limits, permits) : null;
  }

  /**
   * The decision for a refusal remembered with figures for the same permits, counted down to {@code
   * nowMicros}, or null. The binding limit stays full until the entry's end, so its remaining stays
   * 0 and both durations only count down.
   */
  private Decision cachedDecision(Layout layout, String id, long permits, long nowMicros) {
    if (refusals == null) {
      return null;
    }
    RefusalCache.Entry e = refusals.find(id, layout, nowMicros);
    if (e == null || e.permits() != permits) { // permits are positive: 0 marks no figures
      return null;
    }
    long elapsed = nowMicros - e.refMicros();
    return Decision.refused(
        0,
        Duration.ofNanos(Math.max(1, e.retryMicros() - elapsed) * 1000),
        Duration.ofNanos(Math.max(0, e.resetMicros() - elapsed) * 1000),
        layout.limits.get(e.binding()));
  }

  /** The script's reply, or null when Redis failed (the breaker has been told). */
  private List<Object> callSync(
      Layout layout, String[] keys, long permits, boolean figures, long nowMicros) {
    if (!breaker.tryPass()) {
      return null;
    }
    try {
      List<Object> reply =
          calls.await(send(layout, keys, permits, figures, nowMicros), timeoutNanos);
      return accepted(reply) ? reply : null;
    } catch (TimeoutException | RuntimeException e) {
      failed(e);
    } catch (ExecutionException e) {
      failed(ScriptCalls.unwrap(e.getCause()));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      failed(e);
    }
    return null;
  }

  /**
   * Whether a reply decided the request; Redis answered either way, so the breaker is told of a
   * success. A request the script could not decide (a key of its id holds something else, or a
   * calendar quota's periods miss the server's time because the caller's clock is off by more than
   * a period) fails alone, answered by the failure policy: it says nothing of Redis's health, and
   * must not open the breaker for every other id.
   */
  private boolean accepted(List<Object> reply) {
    breaker.onSuccess();
    if (LimiterScript.isUndecided(reply)) {
      LOG.log(
          Level.DEBUG,
          "Redis could not decide a request ("
              + LimiterScript.undecidedReason(reply)
              + "); the failure policy "
              + policy
              + " decides");
      return false;
    }
    return true;
  }

  private <T> CompletionStage<T> callAsync(
      Layout layout,
      String given,
      String id,
      long permits,
      boolean figures,
      long sentMicros,
      Function<List<Object>, T> convert,
      Function<Decision, T> fromPolicy) {
    if (!breaker.tryPass()) {
      return CompletableFuture.completedFuture(fromPolicy.apply(onFailure(layout, given, permits)));
    }
    CompletableFuture<List<Object>> future;
    try {
      future = send(layout, keys(layout, id), permits, figures, sentMicros);
    } catch (RuntimeException e) {
      failed(e);
      return CompletableFuture.completedFuture(fromPolicy.apply(onFailure(layout, given, permits)));
    }
    return calls
        .within(future, timeoutNanos)
        .handle(
            (reply, error) -> {
              if (error != null) {
                failed(ScriptCalls.unwrap(error));
              } else if (accepted(reply)) {
                remember(layout, id, permits, reply, figures, sentMicros);
                return convert.apply(reply);
              }
              return fromPolicy.apply(onFailure(layout, given, permits));
            });
  }

  private void failed(Throwable error) {
    breaker.onFailure();
    LOG.log(Level.DEBUG, "Redis call failed; the failure policy " + policy + " decides", error);
  }

  /** The failure policy's answer for the id {@code given} (as given, not its stored key). */
  private Decision onFailure(Layout layout, String given, long permits) {
    return switch (policy) {
      case ALLOW -> Decision.granted(0, Duration.ZERO, layout.smallest);
      case REFUSE -> {
        long retry = Math.max(TimeUnit.MILLISECONDS.toNanos(1), breaker.nanosUntilProbe());
        yield Decision.refused(0, Duration.ofNanos(retry), layout.longestWindow, layout.smallest);
      }
      case LOCAL -> fallback.decide(given, permits);
    };
  }

  /**
   * How many requests of the default limits wait to be sent in a shared call; 0 without batching.
   */
  int queued() {
    Batcher batcher = layouts.defaults().batcher;
    return batcher == null ? 0 : batcher.queued();
  }
}
