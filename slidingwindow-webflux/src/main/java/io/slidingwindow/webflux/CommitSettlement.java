package io.slidingwindow.webflux;

import io.slidingwindow.http.Settlement;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * The reservations of an exchange under rules that count only some statuses, settled when its
 * response is committed, with its status then: the handler's, its error handling's (500 for an
 * error nothing handled) or a refusal's. One per exchange, kept as an exchange attribute, shared by
 * the filter's rules and an annotated method's. The refunds go through the limiters' asynchronous
 * API and the commit does not wait for them. An exchange cancelled before its response is committed
 * (the client went away) is never settled, and so counts.
 *
 * <p>A refund that throws an {@link Error} (a class of the backend's client that failed to load)
 * does so once every rule's refund was asked for ({@link Settlement#settleAsync}). It never escapes
 * the commit as a throw, which Reactor passes up the stack as fatal and which left the client
 * without an answer: if the chain failed, the chain's failure is what the client is answered (its
 * error handling's response goes on) and the Error is logged, suppressed in that failure; else the
 * commit fails with the Error wrapped in an {@link IllegalStateException} (Reactor drops an Error
 * even as a signal), which the server answers as 500 and logs.
 */
final class CommitSettlement {

  private static final System.Logger LOG =
      System.getLogger(ReactiveRateLimitFilter.class.getName());

  private static final String ATTRIBUTE = CommitSettlement.class.getName();

  private static final String REFUND_ERROR =
      "slidingwindow: a limiter threw an Error giving a reservation back (every rule's refund was"
          + " asked for; that rule's permits stay counted)";

  private Settlement settlement;
  private Throwable failure; // the chain's, if it failed

  private CommitSettlement(Settlement settlement) {
    this.settlement = settlement;
  }

  /** Adds {@code settlement} to those {@code exchange} settles when its response is committed. */
  static void add(ServerWebExchange exchange, Settlement settlement) {
    if (settlement.isEmpty()) {
      return;
    }
    CommitSettlement held = exchange.getAttribute(ATTRIBUTE);
    if (held != null) {
      held.settlement = held.settlement.and(settlement);
      return;
    }
    CommitSettlement pending = new CommitSettlement(settlement);
    exchange.getAttributes().put(ATTRIBUTE, pending);
    ServerHttpResponse response = exchange.getResponse();
    response.beforeCommit(() -> pending.settle(response.getStatusCode()));
  }

  /**
   * {@code chain}, noting its failure for the settlement of {@code exchange} (which a later look at
   * the exchange may still add to).
   */
  static Mono<Void> watch(ServerWebExchange exchange, Mono<Void> chain) {
    return chain.doOnError(
        failure -> {
          CommitSettlement held = exchange.getAttribute(ATTRIBUTE);
          if (held != null) {
            held.failure = failure;
          }
        });
  }

  private Mono<Void> settle(HttpStatusCode status) {
    try {
      var unused = settlement.settleAsync(status == null ? 200 : status.value());
      return Mono.empty();
    } catch (Error e) {
      Throwable chainFailure = failure;
      if (chainFailure == null) {
        // Wrapped: Reactor drops a fatal Error even as a signal, and the client would wait on.
        return Mono.error(new IllegalStateException(REFUND_ERROR, e));
      }
      if (chainFailure != e) {
        chainFailure.addSuppressed(e);
      }
      LOG.log(
          System.Logger.Level.ERROR,
          REFUND_ERROR + "; the request had failed, and that failure is answered",
          chainFailure);
      return Mono.empty();
    }
  }
}
