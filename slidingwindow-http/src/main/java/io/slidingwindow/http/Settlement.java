package io.slidingwindow.http;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Reservation;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The permits a request reserved under rules that count only some answers ({@link
 * HttpRule#countStatuses()}), to settle once its answer's status is known: each rule that does not
 * count that status gives its permits back, each that does keeps them. What {@link
 * EnforcementCore.Outcome#settlement()} holds for the server adapter.
 *
 * <p>The status must be the server's own final answer (after the handler and its error handling; an
 * exception that escapes counts as 500), never anything the client sends. A request whose answer is
 * never known (the client went away first) is never settled, and so counts. A refund that fails is
 * told to the listener's {@code onError} and logged; the permits then stay counted, which never
 * grants more. Thread-safe: of repeated settlements only the first gives anything back.
 */
public final class Settlement {

  private static final Settlement NONE = new Settlement(List.of());

  private static final String REFUND_FAILED =
      "its limiter could not give a reservation back; the request stays counted";

  /** One rule's reservation: its permits are recorded and can be given back. */
  record Pending(HttpRule rule, Reservation reservation, ListenerCalls calls) {}

  private final List<Pending> pending;

  private Settlement(List<Pending> pending) {
    this.pending = pending;
  }

  /** Nothing to settle. */
  public static Settlement none() {
    return NONE;
  }

  static Settlement of(List<Pending> pending) {
    return pending.isEmpty() ? NONE : new Settlement(List.copyOf(pending));
  }

  /** Whether there is nothing to settle. */
  public boolean isEmpty() {
    return pending.isEmpty();
  }

  /** This settlement and {@code other}'s, as one (a filter's rules and a handler's). */
  public Settlement and(Settlement other) {
    if (other == null || other.isEmpty()) {
      return this;
    }
    if (isEmpty()) {
      return other;
    }
    List<Pending> both = new ArrayList<>(pending);
    both.addAll(other.pending);
    return new Settlement(List.copyOf(both));
  }

  /**
   * Gives back the permits of each rule that does not count {@code status}, waiting for its
   * backend. Throws nothing but an {@link Error} a backend threw (a class that failed to load), and
   * that only once every other rule's refund was attempted, so that one rule's backend never keeps
   * the other rules' permits counted; later errors are suppressed in the first.
   */
  public void settle(int status) {
    Error first = null;
    for (Pending p : pending) {
      if (!p.rule().countStatuses().contains(status)) {
        try {
          p.reservation().refund();
        } catch (RuntimeException e) {
          p.calls().error(p.rule(), e, REFUND_FAILED);
        } catch (Error e) {
          first = first(first, e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }

  private static Error first(Error first, Error next) {
    if (first == null) {
      return next;
    }
    if (next != first) {
      first.addSuppressed(next);
    }
    return first;
  }

  /**
   * As {@link #settle}, without blocking: the stage completes when every backend has answered, and
   * never exceptionally. As there, an {@link Error} a backend throws at once is thrown (no stage is
   * returned), once every other rule's refund was asked for.
   */
  public CompletionStage<Void> settleAsync(int status) {
    CompletableFuture<?>[] refunds = new CompletableFuture<?>[pending.size()];
    Error first = null;
    for (int i = 0; i < refunds.length; i++) {
      Pending p = pending.get(i);
      CompletionStage<Boolean> refund;
      if (p.rule().countStatuses().contains(status)) {
        refund = CompletableFuture.completedFuture(false);
      } else {
        try {
          refund = p.reservation().refundAsync();
        } catch (RuntimeException e) {
          refund = CompletableFuture.failedFuture(e);
        } catch (Error e) {
          first = first(first, e);
          refund = CompletableFuture.completedFuture(false);
        }
      }
      refunds[i] =
          refund
              .handle(
                  (done, error) -> {
                    if (error != null) {
                      p.calls().error(p.rule(), ListenerCalls.asRuntime(error), REFUND_FAILED);
                    }
                    return null;
                  })
              .toCompletableFuture();
    }
    if (first != null) {
      throw first;
    }
    return CompletableFuture.allOf(refunds);
  }

  /**
   * Checks that {@code limiter} can give reserved permits back, as a rule that counts only some
   * statuses needs: it overrides {@link KeyedRateLimiter#reserve(Object, Object, long)} or {@link
   * KeyedRateLimiter#refund(Object, long)}, which by default cannot.
   *
   * @throws IllegalArgumentException naming the rule and the limiter if it cannot
   */
  static void checkRefunds(HttpRule rule, KeyedRateLimiter<String> limiter) {
    if (rule.countStatuses() == null) {
      return;
    }
    Class<?> type = limiter.getClass();
    try {
      if (type.getMethod("reserve", Object.class, Object.class, long.class).getDeclaringClass()
              != KeyedRateLimiter.class
          || type.getMethod("refund", Object.class, long.class).getDeclaringClass()
              != KeyedRateLimiter.class) {
        return;
      }
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(e);
    }
    throw new IllegalArgumentException(
        "countStatuses: rule '"
            + rule.name()
            + "' counts only some statuses, which needs a limiter that can give reserved permits"
            + " back, but "
            + type.getName()
            + " cannot (it implements neither reserve nor refund); use the in-memory or Redis"
            + " backend, or implement them");
  }

  @Override
  public String toString() {
    return "Settlement" + pending.stream().map(p -> p.rule().name()).toList();
  }
}
