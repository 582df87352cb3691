package io.slidingwindow.server.internal;

import com.google.protobuf.Duration;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.server.envoy.type.v3.RateLimitUnit;
import io.slidingwindow.server.internal.Decisions.BadRequest;
import io.slidingwindow.server.internal.Decisions.Descriptor;
import io.slidingwindow.server.internal.Decisions.Entry;
import io.slidingwindow.server.internal.Decisions.ReportedLimit;
import io.slidingwindow.server.internal.Decisions.Verdict;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;

/**
 * Envoy's {@code envoy.service.ratelimit.v3.RateLimitService}: translates {@code ShouldRateLimit}
 * to and from {@link Decider}. A malformed request fails with INVALID_ARGUMENT, an unknown domain
 * with NOT_FOUND, and anything unexpected with INTERNAL; none of them affects other calls.
 */
public final class EnvoyRateLimitService extends RateLimitServiceGrpc.RateLimitServiceImplBase {

  private static final System.Logger LOG = System.getLogger(EnvoyRateLimitService.class.getName());

  private final Decider decider;
  private final ServerMetrics metrics;

  public EnvoyRateLimitService(Decider decider, ServerMetrics metrics) {
    this.decider = decider;
    this.metrics = metrics;
  }

  @Override
  public void shouldRateLimit(
      RateLimitRequest request, StreamObserver<RateLimitResponse> responseObserver) {
    long start = System.nanoTime();
    RateLimitResponse response;
    try {
      List<Descriptor> descriptors = descriptors(request.getDescriptorsList());
      Verdict verdict =
          decider.decide(
              request.getDomain(), descriptors, Integer.toUnsignedLong(request.getHitsAddend()));
      metrics.recorder().record(request.getDomain(), descriptors, verdict);
      response = toResponse(verdict);
      metrics.decided("grpc", request.getDomain(), verdict, System.nanoTime() - start);
    } catch (BadRequest e) {
      metrics.refused("grpc", e.kind().name().toLowerCase(java.util.Locale.ROOT));
      Status status =
          e.kind() == BadRequest.Kind.NOT_FOUND ? Status.NOT_FOUND : Status.INVALID_ARGUMENT;
      responseObserver.onError(status.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "ShouldRateLimit failed for domain " + request.getDomain(), e);
      metrics.refused("grpc", "internal");
      responseObserver.onError(
          Status.INTERNAL
              .withDescription("the rate limit service failed: " + e)
              .asRuntimeException());
      return;
    }
    responseObserver.onNext(response);
    responseObserver.onCompleted();
  }

  static List<Descriptor> descriptors(List<RateLimitDescriptor> descriptors) {
    List<Descriptor> converted = new ArrayList<>(descriptors.size());
    for (RateLimitDescriptor descriptor : descriptors) {
      List<Entry> entries = new ArrayList<>(descriptor.getEntriesCount());
      for (RateLimitDescriptor.Entry entry : descriptor.getEntriesList()) {
        entries.add(new Entry(entry.getKey(), entry.getValue()));
      }
      Long hits = descriptor.hasHitsAddend() ? descriptor.getHitsAddend().getValue() : null;
      Decisions.LimitOverride override = null;
      if (descriptor.hasLimit()) {
        override =
            new Decisions.LimitOverride(
                Integer.toUnsignedLong(descriptor.getLimit().getRequestsPerUnit()),
                unit(descriptor.getLimit().getUnit()));
      }
      converted.add(new Descriptor(entries, hits, override));
    }
    return converted;
  }

  private static TimeUnitName unit(RateLimitUnit unit) {
    return switch (unit) {
      case SECOND -> TimeUnitName.SECOND;
      case MINUTE -> TimeUnitName.MINUTE;
      case HOUR -> TimeUnitName.HOUR;
      case DAY -> TimeUnitName.DAY;
      case MONTH -> TimeUnitName.MONTH;
      case YEAR -> TimeUnitName.YEAR;
      default -> TimeUnitName.UNKNOWN;
    };
  }

  // A protobuf Duration is whole seconds plus the nanosecond adjustment, as java.time holds it.
  @SuppressWarnings({"JavaDurationGetSecondsToToSeconds", "JavaDurationGetSecondsGetNano"})
  static RateLimitResponse toResponse(Verdict verdict) {
    RateLimitResponse.Builder response =
        RateLimitResponse.newBuilder().setOverallCode(code(verdict.overall()));
    for (Decisions.Status status : verdict.statuses()) {
      RateLimitResponse.DescriptorStatus.Builder out =
          RateLimitResponse.DescriptorStatus.newBuilder()
              .setCode(code(status.code()))
              .setLimitRemaining((int) status.remaining());
      if (status.limit() != null) {
        out.setCurrentLimit(limit(status.limit()));
      }
      if (status.untilReset() != null) {
        out.setDurationUntilReset(
            Duration.newBuilder()
                .setSeconds(status.untilReset().getSeconds())
                .setNanos(status.untilReset().getNano()));
      }
      response.addStatuses(out);
    }
    return response.build();
  }

  private static RateLimitResponse.RateLimit limit(ReportedLimit limit) {
    return RateLimitResponse.RateLimit.newBuilder()
        .setName(limit.name())
        .setRequestsPerUnit((int) Math.min(limit.requestsPerUnit(), Decider.MAX_UINT32))
        .setUnit(
            switch (limit.unit()) {
              case SECOND -> RateLimitResponse.RateLimit.Unit.SECOND;
              case MINUTE -> RateLimitResponse.RateLimit.Unit.MINUTE;
              case HOUR -> RateLimitResponse.RateLimit.Unit.HOUR;
              case DAY -> RateLimitResponse.RateLimit.Unit.DAY;
              case WEEK -> RateLimitResponse.RateLimit.Unit.WEEK;
              case MONTH -> RateLimitResponse.RateLimit.Unit.MONTH;
              case YEAR -> RateLimitResponse.RateLimit.Unit.YEAR;
              case UNKNOWN -> RateLimitResponse.RateLimit.Unit.UNKNOWN;
            })
        .build();
  }

  private static RateLimitResponse.Code code(Decisions.Code code) {
    return code == Decisions.Code.OK
        ? RateLimitResponse.Code.OK
        : RateLimitResponse.Code.OVER_LIMIT;
  }
}
