package io.slidingwindow.grpc;

import io.grpc.Context;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.slidingwindow.http.HttpReply;
import io.slidingwindow.http.Settlement;
import java.util.Map;

/**
 * The call as the application's handler sees it: it adds the grant's draft-10 headers to the
 * response headers, settles the permits that rules counting only some codes reserved with the code
 * the call is closed with (before the close goes on, so that a refunded call's permits are free by
 * the time its client has the answer), and once a rule has refused the call (and closed it) it
 * drops whatever the handler still sends. A call the client cancelled (or whose deadline passed) is
 * never settled, and so keeps its permits, also when the handler closes it after (passing on the
 * {@code CANCELLED} it was told of: a code the client never receives); nor is one the interceptor
 * ends itself after the handler started (a message refused, a decision that failed), since the code
 * the handler would have closed it with is never known. Every method is serialized on this object,
 * so that a refusal never runs into a send of the handler's on another thread.
 */
final class LimitedCall<ReqT, RespT>
    extends ForwardingServerCall.SimpleForwardingServerCall<ReqT, RespT> {

  private Metadata grantHeaders;
  private boolean closed;
  private Status.Code closedWith;

  /** Whether the call was ended by the interceptor after its handler started: never settled. */
  private boolean keptCounted;

  private Settlement settlement = Settlement.none();

  /** What the close of the call this one wraps threw, if it did: see {@link #close}. */
  private volatile Throwable closeFailure;

  /** The call's context: cancelled by the client, the deadline or a shutdown before it closes. */
  private final Context context;

  LimitedCall(ServerCall<ReqT, RespT> call, Context context) {
    super(call);
    this.context = context;
  }

  /**
   * Whether the client cancelled the call or its deadline passed. The call's context is cancelled a
   * moment before the call itself says so, so a handler that sees its context cancelled and closes
   * the call at once is caught too.
   */
  private boolean cancelledBeforeClose() {
    return super.isCancelled() || context.isCancelled();
  }

  /** Adds {@code headers} to the response headers when they are sent. */
  synchronized void grantHeaders(Map<String, String> headers) {
    this.grantHeaders = headers.isEmpty() ? null : GrpcRefusals.headers(headers);
  }

  /**
   * Settles {@code reserved} with the code the call is closed with: when it closes, or at once if
   * it is closed already. Never blocks: the refunds go through the limiters' asynchronous API.
   */
  synchronized void settleOnClose(Settlement reserved) {
    if (!closed) {
      settlement = settlement.and(reserved);
    } else if (!keptCounted) {
      settle(reserved, closedWith);
    }
  }

  /**
   * Closes the call as {@code refusal} says, unless it is closed already. If the handler has {@code
   * started}, the permits reserved by rules counting only some codes are kept, not settled with
   * {@code RESOURCE_EXHAUSTED}: the handler may have answered what it saw (a wrong password), and
   * the code it would have closed the call with is never known.
   */
  synchronized void refuse(HttpReply refusal, boolean started) {
    if (!closed) {
      StatusRuntimeException answer = GrpcRefusals.of(refusal);
      close(answer.getStatus(), answer.getTrailers(), started);
    }
  }

  /**
   * Closes the call with {@code status} for a reason of the interceptor's own (a decision that
   * failed), unless it is closed already; permits kept as for a refusal if the handler has {@code
   * started}.
   */
  synchronized void end(Status status, boolean started) {
    close(status, new Metadata(), started);
  }

  /** Closes the call with {@code status} and no trailers, unless it is closed already. */
  synchronized void fail(Status status) {
    fail(status, new Metadata());
  }

  /** Closes the call with {@code status} and {@code trailers}, unless it is closed already. */
  synchronized void fail(Status status, Metadata trailers) {
    close(status, trailers, cancelledBeforeClose());
  }

  /**
   * Marks the call closed with {@code status}, settles it (or keeps its reservations counted
   * without settling if {@code keep}), then closes it, unless it was closed already. The close goes
   * on whatever settling throws (a backend's refund throwing an {@link Error} at once), which is
   * thrown on after, with what the close threw, if anything, suppressed in it: a call marked closed
   * but never closed would stay open until its deadline. What the close throws (an interceptor
   * outside this one) is kept for {@link #closeFailure}: the call may never have been closed below,
   * and only gRPC can then end the stream.
   */
  private void close(Status status, Metadata trailers, boolean keep) {
    if (closed) {
      return;
    }
    closed = true;
    closedWith = status.getCode();
    keptCounted = keep;
    Settlement reserved = settlement;
    settlement = Settlement.none();
    Throwable settling = null;
    if (!keep) {
      try {
        settle(reserved, closedWith);
      } catch (RuntimeException | Error e) {
        settling = e;
      }
    }
    try {
      delegate().close(status, trailers);
    } catch (RuntimeException | Error e) {
      closeFailure = e;
      if (settling == null) {
        throw e;
      }
      if (e != settling) {
        settling.addSuppressed(e);
      }
    }
    if (settling instanceof Error error) {
      throw error;
    }
    if (settling != null) {
      throw (RuntimeException) settling;
    }
  }

  /** What closing the call threw (the close of an interceptor outside this one), or null. */
  Throwable closeFailure() {
    return closeFailure;
  }

  private static void settle(Settlement reserved, Status.Code code) {
    if (!reserved.isEmpty()) {
      var unused = reserved.settleAsync(GrpcRateLimitRule.statusOf(code));
    }
  }

  @Override
  public synchronized void sendHeaders(Metadata headers) {
    if (!closed) {
      if (grantHeaders != null) {
        headers.merge(grantHeaders);
      }
      super.sendHeaders(headers);
    }
  }

  @Override
  public synchronized void sendMessage(RespT message) {
    if (!closed) {
      super.sendMessage(message);
    }
  }

  @Override
  public synchronized void close(Status status, Metadata trailers) {
    close(status, trailers, cancelledBeforeClose());
  }

  @Override
  public synchronized void request(int numMessages) {
    if (!closed) {
      super.request(numMessages);
    }
  }

  @Override
  public synchronized boolean isCancelled() {
    return closed || super.isCancelled();
  }

  @Override
  public synchronized boolean isReady() {
    return !closed && super.isReady();
  }
}
