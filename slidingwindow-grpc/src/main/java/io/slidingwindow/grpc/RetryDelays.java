package io.slidingwindow.grpc;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.RetryInfo;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.protobuf.StatusProto;
import java.time.Duration;
import java.util.Optional;

/**
 * Reads, on the client side, how long a refused call asks to wait: the {@code google.rpc.RetryInfo}
 * of {@code grpc-status-details-bin}, else the {@code retry-after} trailer (whole seconds), as
 * {@link RateLimitServerInterceptor} and other servers send them. Stateless.
 */
public final class RetryDelays {

  private RetryDelays() {}

  /**
   * The wait a failed call asks for, if its status is {@code RESOURCE_EXHAUSTED} or {@code
   * UNAVAILABLE} and it names one; empty otherwise, also for a malformed or negative one.
   *
   * @param error what the call failed with (a {@code StatusRuntimeException} or {@code
   *     StatusException}, or one that has such a cause)
   */
  public static Optional<Duration> of(Throwable error) {
    Status status = Status.fromThrowable(error);
    if (status.getCode() != Status.Code.RESOURCE_EXHAUSTED
        && status.getCode() != Status.Code.UNAVAILABLE) {
      return Optional.empty();
    }
    com.google.rpc.Status details = StatusProto.fromThrowable(error);
    if (details != null) {
      for (Any detail : details.getDetailsList()) {
        if (detail.is(RetryInfo.class)) {
          try {
            com.google.protobuf.Duration delay = detail.unpack(RetryInfo.class).getRetryDelay();
            if (delay.getSeconds() >= 0 && delay.getNanos() >= 0) {
              return Optional.of(Duration.ofSeconds(delay.getSeconds(), delay.getNanos()));
            }
          } catch (InvalidProtocolBufferException e) {
            return Optional.empty();
          }
        }
      }
    }
    Metadata trailers = Status.trailersFromThrowable(error);
    String seconds = trailers == null ? null : trailers.get(GrpcRefusals.RETRY_AFTER);
    if (seconds != null && seconds.matches("[0-9]{1,12}")) {
      return Optional.of(Duration.ofSeconds(Long.parseLong(seconds)));
    }
    return Optional.empty();
  }
}
