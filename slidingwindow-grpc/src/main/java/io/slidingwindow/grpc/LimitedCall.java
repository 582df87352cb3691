package io.slidingwindow.grpc;

import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.slidingwindow.http.HttpReply;
import java.util.Map;

/**
 * The call as the application's handler sees it: it adds the grant's draft-10 headers to the
 * response headers, and once a rule has refused the call (and closed it) it drops whatever the
 * handler still sends. Every method is serialized on this object, so that a refusal never runs into
 * a send of the handler's on another thread.
 */
final class LimitedCall<ReqT, RespT>
    extends ForwardingServerCall.SimpleForwardingServerCall<ReqT, RespT> {

  private Metadata grantHeaders;
  private boolean closed;

  LimitedCall(ServerCall<ReqT, RespT> call) {
    super(call);
  }

  /** Adds {@code headers} to the response headers when they are sent. */
  synchronized void grantHeaders(Map<String, String> headers) {
    this.grantHeaders = headers.isEmpty() ? null : GrpcRefusals.headers(headers);
  }

  /** Closes the call as {@code refusal} says, unless it is closed already. */
  synchronized void refuse(HttpReply refusal) {
    if (!closed) {
      closed = true;
      StatusRuntimeException answer = GrpcRefusals.of(refusal);
      delegate().close(answer.getStatus(), answer.getTrailers());
    }
  }

  /** Closes the call with {@code status} and no trailers, unless it is closed already. */
  synchronized void fail(Status status) {
    if (!closed) {
      closed = true;
      delegate().close(status, new Metadata());
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
    if (!closed) {
      closed = true;
      super.close(status, trailers);
    }
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
