package io.slidingwindow.redis;

import io.slidingwindow.Quota;
import io.slidingwindow.redis.Layouts.Layout;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;

/**
 * The quota operations of a {@link RedisRateLimiter} (peek, reset, refund, and a reservation's
 * refund): one call of the limiter script each, never batched, never answered by the failure policy
 * or the breaker, since no local answer is right for them. A failure throws (or completes the stage
 * with) {@link RedisCallException}; a reset or refund that timed out may have run. A reset or
 * refund also forgets this limiter's remembered refusal of the id, before it is sent and once it is
 * answered (a refusal remembered meanwhile may predate it). Synchronous calls wait on the same
 * stage as asynchronous ones. Every method takes the id's stored key. Thread-safe.
 */
final class QuotaCalls {

  private final ScriptCalls calls;
  private final LimiterCalls limiter;
  private final long timeoutNanos;
  private final RedisBackend backend;

  QuotaCalls(RedisBackend backend, LimiterCalls limiter, Duration commandTimeout) {
    this.calls = backend.calls();
    this.backend = backend;
    this.limiter = limiter;
    this.timeoutNanos = commandTimeout.toNanos();
  }

  Quota peek(Layout layout, String id) {
    return layout.script.quota(layout.plan, await(id, send(layout, id, LimiterScript.PEEK)));
  }

  CompletionStage<Quota> peekAsync(Layout layout, String id) {
    return within(id, send(layout, id, LimiterScript.PEEK))
        .thenApply(reply -> layout.script.quota(layout.plan, reply));
  }

  void reset(Layout layout, String id) {
    await(id, send(layout, id, LimiterScript.RESET));
  }

  CompletionStage<Void> resetAsync(Layout layout, String id) {
    return within(id, send(layout, id, LimiterScript.RESET)).thenApply(reply -> null);
  }

  Quota refund(Layout layout, String id, long permits) {
    List<Object> reply = await(id, send(layout, id, LimiterScript.refund(permits)));
    return layout.script.quota(layout.plan, reply);
  }

  CompletionStage<Quota> refundAsync(Layout layout, String id, long permits) {
    return within(id, send(layout, id, LimiterScript.refund(permits)))
        .thenApply(reply -> layout.script.quota(layout.plan, reply));
  }

  /** Gives back a reservation's {@code permits}, recorded at script time {@code atMicros}. */
  void refundAt(Layout layout, String id, long permits, long atMicros) {
    await(id, send(layout, id, LimiterScript.refundAt(permits, atMicros)));
  }

  CompletionStage<Void> refundAtAsync(Layout layout, String id, long permits, long atMicros) {
    return within(id, send(layout, id, LimiterScript.refundAt(permits, atMicros)))
        .thenApply(reply -> null);
  }

  /** Sends one operation; a reset or refund forgets the id's remembered refusal first. */
  private CompletableFuture<List<Object>> send(Layout layout, String id, String op) {
    if (!LimiterScript.PEEK.equals(op)) {
      limiter.forgetRefusal(id);
    }
    String now = limiter.scriptNow(limiter.localMicros());
    try {
      return calls.run(Script.LIMITER, limiter.keys(layout, id), layout.script.args(op, now));
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  private List<Object> await(String id, CompletableFuture<List<Object>> call) {
    try {
      return checked(id, calls.await(call, timeoutNanos));
    } catch (TimeoutException e) {
      throw new RedisCallException(
          "no answer from Redis within " + Duration.ofNanos(timeoutNanos) + " on " + backend, e);
    } catch (ExecutionException e) {
      throw failure(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RedisCallException("interrupted while waiting for Redis on " + backend, e);
    }
  }

  private CompletableFuture<List<Object>> within(String id, CompletableFuture<List<Object>> call) {
    return calls
        .within(call, timeoutNanos)
        .handle(
            (reply, error) -> {
              if (error != null) {
                throw new CompletionException(failure(error));
              }
              return checked(id, reply);
            });
  }

  private RedisCallException failure(Throwable error) {
    Throwable cause = ScriptCalls.unwrap(error);
    if (cause instanceof RedisCallException known) {
      return known;
    }
    if (cause instanceof TimeoutException) {
      return new RedisCallException(
          "no answer from Redis within " + Duration.ofNanos(timeoutNanos) + " on " + backend,
          cause);
    }
    return new RedisCallException("Redis call failed on " + backend + ": " + cause, cause);
  }

  /** The reply, unless a key of the id holds something else. */
  private List<Object> checked(String id, List<Object> reply) {
    limiter.forgetRefusal(id);
    if (LimiterScript.isQuotaUndecided(reply)) {
      throw new RedisCallException(
          "Redis call failed on " + backend + ": " + LimiterScript.undecidedReason(reply), null);
    }
    return reply;
  }
}
