package io.slidingwindow.server.grpc;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.DecisionEvents;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.System.Logger.Level;

/**
 * Envoy's {@code envoy.service.ratelimit.v3.RateLimitService}: translates {@code ShouldRateLimit}
 * to and from {@link Decider}, on the thread gRPC calls it on (the event loop, with a direct
 * executor). In memory the answer is sent before the call returns; on Redis when Redis (or the
 * failure policy, at the command timeout) answers, so no thread waits.
 *
 * <p>A request that does not parse fails with INVALID_ARGUMENT and one line that says why (a domain
 * or key with invalid UTF-8, or bytes that are no {@code RateLimitRequest}), counted, with nothing
 * logged: the request marshaller answers a marker message instead of throwing. A descriptor value
 * that is not UTF-8 is no fault: it is read by its bytes ({@link LenientRequest}). A malformed
 * request fails with INVALID_ARGUMENT, an unknown domain with NOT_FOUND, anything unexpected with
 * INTERNAL; none of them affects other calls.
 */
public final class EnvoyRateLimitService
    implements ServerCalls.UnaryMethod<RateLimitRequest, RateLimitResponse> {

  private static final System.Logger LOG = System.getLogger(EnvoyRateLimitService.class.getName());

  /** Stands for a request whose strings are not valid UTF-8; compared by identity. */
  private static final RateLimitRequest INVALID_UTF8 =
      RateLimitRequest.newBuilder().setDomain("invalid UTF-8").build();

  /** Stands for bytes that are no RateLimitRequest; compared by identity. */
  private static final RateLimitRequest MALFORMED =
      RateLimitRequest.newBuilder().setDomain("malformed").build();

  private final Decider decider;
  private final DecisionEvents events;

  private EnvoyRateLimitService(Decider decider, DecisionEvents events) {
    this.decider = decider;
    this.events = events;
  }

  /** The service, bound to {@code decider}, with reflection's descriptors. */
  public static ServerServiceDefinition definition(Decider decider, DecisionEvents events) {
    MethodDescriptor<RateLimitRequest, RateLimitResponse> method =
        RateLimitServiceGrpc.getShouldRateLimitMethod().toBuilder(
                new RequestMarshaller(),
                ProtoUtils.marshaller(RateLimitResponse.getDefaultInstance()))
            .build();
    ServiceDescriptor generated = RateLimitServiceGrpc.getServiceDescriptor();
    ServiceDescriptor service =
        ServiceDescriptor.newBuilder(generated.getName())
            .setSchemaDescriptor(generated.getSchemaDescriptor())
            .addMethod(method)
            .build();
    return ServerServiceDefinition.builder(service)
        .addMethod(method, ServerCalls.asyncUnaryCall(new EnvoyRateLimitService(decider, events)))
        .build();
  }

  @Override
  @SuppressWarnings("ReferenceEquality") // the markers are told apart from requests by identity
  public void invoke(RateLimitRequest request, StreamObserver<RateLimitResponse> responses) {
    long start = System.nanoTime();
    if (request == INVALID_UTF8 || request == MALFORMED) {
      boolean utf8 = request == INVALID_UTF8;
      events.refused(DecisionEvents.GRPC, utf8 ? "invalid_utf8" : "malformed");
      responses.onError(
          Status.INVALID_ARGUMENT
              .withDescription(
                  utf8
                      ? "a string field of the request is not valid UTF-8"
                      : "the request is not a valid RateLimitRequest")
              .asRuntimeException());
      return;
    }
    ProtobufRequest view = new ProtobufRequest(request);
    try {
      if (decider.answersAtOnce()) {
        respond(view, decider.decide(view), start, responses);
      } else {
        var unused =
            decider
                .decideAsync(view)
                .whenComplete(
                    (verdict, error) -> {
                      if (error != null) {
                        fail(request, error, responses);
                      } else {
                        respond(view, verdict, start, responses);
                      }
                    });
      }
    } catch (BadRequest e) {
      events.refused(DecisionEvents.GRPC, e.kind().tag());
      Status status =
          e.kind() == BadRequest.Kind.NOT_FOUND ? Status.NOT_FOUND : Status.INVALID_ARGUMENT;
      responses.onError(status.withDescription(e.getMessage()).asRuntimeException());
    } catch (RuntimeException e) {
      fail(request, e, responses);
    }
  }

  private void respond(
      ProtobufRequest request,
      Verdict verdict,
      long start,
      StreamObserver<RateLimitResponse> responses) {
    RateLimitResponse response = EnvoyResponses.of(verdict);
    events.decided(DecisionEvents.GRPC, request, verdict, System.nanoTime() - start);
    responses.onNext(response);
    responses.onCompleted();
  }

  private void fail(
      RateLimitRequest request, Throwable error, StreamObserver<RateLimitResponse> responses) {
    LOG.log(
        Level.ERROR,
        "ShouldRateLimit failed for domain " + request.getDomain() + ": " + error,
        error);
    events.refused(DecisionEvents.GRPC, "internal");
    responses.onError(
        Status.INTERNAL
            .withDescription("the rate limit service failed: " + error)
            .asRuntimeException());
  }

  /**
   * gRPC's protobuf marshaller, answering a marker message where it would throw: a parse failure
   * thrown from a marshaller is logged by gRPC with its stack trace and sent as an opaque status.
   */
  private static final class RequestMarshaller
      implements MethodDescriptor.Marshaller<RateLimitRequest> {
    private final MethodDescriptor.Marshaller<RateLimitRequest> protobuf =
        ProtoUtils.marshaller(RateLimitRequest.getDefaultInstance());

    @Override
    public InputStream stream(RateLimitRequest value) {
      return protobuf.stream(value);
    }

    @Override
    public RateLimitRequest parse(InputStream stream) {
      byte[] bytes;
      try {
        bytes = bytesOf(stream);
      } catch (IOException e) {
        return MALFORMED;
      }
      try {
        return RateLimitRequest.parseFrom(bytes);
      } catch (InvalidProtocolBufferException e) {
        if (!String.valueOf(e.getMessage()).contains("UTF-8")) {
          return MALFORMED;
        }
      }
      try { // a value that is not UTF-8, as Envoy passes on a header's bytes: counted by its bytes
        return LenientRequest.parse(bytes);
      } catch (LenientRequest.NotUtf8 e) {
        return INVALID_UTF8;
      } catch (IOException | RuntimeException e) {
        return MALFORMED;
      }
    }

    /**
     * The bytes of {@code stream}, in one array of their size: gRPC's message streams know their
     * length ({@code available()}), so this allocates the message's size once, where {@code
     * readAllBytes()} would first take a buffer of several kilobytes per request.
     */
    private static byte[] bytesOf(InputStream stream) throws IOException {
      byte[] known = stream.readNBytes(Math.max(stream.available(), 0));
      int next = stream.read();
      if (next < 0) {
        return known;
      }
      ByteArrayOutputStream all = new ByteArrayOutputStream(known.length + 256);
      all.write(known);
      all.write(next);
      stream.transferTo(all);
      return all.toByteArray();
    }
  }
}
