package io.slidingwindow.grpc;

import com.google.protobuf.Any;
import com.google.protobuf.Duration;
import com.google.rpc.Code;
import com.google.rpc.RetryInfo;
import io.grpc.Metadata;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import io.slidingwindow.http.HttpReply;
import io.slidingwindow.http.QuotaHeaders;
import java.util.Locale;
import java.util.Map;

/**
 * The gRPC form of a refusal: {@code RESOURCE_EXHAUSTED} with a {@code google.rpc.Status} in {@code
 * grpc-status-details-bin} that holds a {@code google.rpc.RetryInfo}, and the reply's headers as
 * trailers ({@code retry-after} in whole seconds, and the draft-10 {@code ratelimit-policy} and
 * {@code ratelimit} when turned on). Stateless.
 */
final class GrpcRefusals {

  /** The trailer that tells how many whole seconds to wait. */
  static final Metadata.Key<String> RETRY_AFTER =
      Metadata.Key.of("retry-after", Metadata.ASCII_STRING_MARSHALLER);

  /**
   * The trailer by which gRPC's own retry policies (gRFC A6) learn when to try again, in
   * milliseconds: a client whose retry policy retries {@code RESOURCE_EXHAUSTED} waits this long.
   */
  static final Metadata.Key<String> RETRY_PUSHBACK_MS =
      Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

  private GrpcRefusals() {}

  /**
   * The status and trailers to close a refused call with, from the enforcement's {@code reply}
   * (whose {@code Retry-After} is already rounded up to whole seconds, never early).
   */
  static StatusRuntimeException of(HttpReply reply) {
    long seconds = Long.parseLong(reply.headers().get(QuotaHeaders.RETRY_AFTER));
    String description =
        "rate limit exceeded; retry after " + seconds + (seconds == 1 ? " second" : " seconds");
    Metadata trailers = new Metadata();
    for (Map.Entry<String, String> header : reply.headers().entrySet()) {
      trailers.put(
          Metadata.Key.of(
              header.getKey().toLowerCase(Locale.ROOT), Metadata.ASCII_STRING_MARSHALLER),
          header.getValue());
    }
    trailers.put(RETRY_PUSHBACK_MS, Long.toString(Math.multiplyExact(seconds, 1000L)));
    com.google.rpc.Status status =
        com.google.rpc.Status.newBuilder()
            .setCode(Code.RESOURCE_EXHAUSTED_VALUE)
            .setMessage(description)
            .addDetails(
                Any.pack(
                    RetryInfo.newBuilder()
                        .setRetryDelay(Duration.newBuilder().setSeconds(seconds))
                        .build()))
            .build();
    return StatusProto.toStatusRuntimeException(status, trailers);
  }

  /** The draft-10 headers of a grant as metadata, lower-cased. */
  static Metadata headers(Map<String, String> headers) {
    Metadata metadata = new Metadata();
    headers.forEach(
        (name, value) ->
            metadata.put(
                Metadata.Key.of(name.toLowerCase(Locale.ROOT), Metadata.ASCII_STRING_MARSHALLER),
                value));
    return metadata;
  }
}
