package io.slidingwindow.server.grpc;

import com.google.protobuf.Duration;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.ReportedLimit;
import io.slidingwindow.server.decide.Decisions.Status;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Verdicts as Envoy's {@code RateLimitResponse}. The {@code current_limit} message of each limit a
 * configured rule reports is built once and reused (protobuf messages are immutable); that of a
 * descriptor's own limit is built each time, since the request chose it. Thread-safe.
 */
public final class EnvoyResponses {

  /**
   * Limits that configured rules report (their own and their admin overrides'): a bound against
   * configurations that keep changing. A descriptor's own limit is never kept: its
   * requests_per_unit and unit are the client's or route's choice, any of 2^32 (also when answered
   * OVER_LIMIT as a bad override), and a stream of them would fill the cache for good.
   */
  private static final int MAX_CACHED = 10_000;

  private static final Map<ReportedLimit, RateLimitResponse.RateLimit> LIMITS =
      new ConcurrentHashMap<>();

  private EnvoyResponses() {}

  /** {@code verdict} as a response. */
  // A protobuf Duration is whole seconds plus the nanosecond adjustment, as java.time holds it.
  @SuppressWarnings({"JavaDurationGetSecondsToToSeconds", "JavaDurationGetSecondsGetNano"})
  public static RateLimitResponse of(Verdict verdict) {
    RateLimitResponse.Builder response =
        RateLimitResponse.newBuilder().setOverallCode(code(verdict.overall()));
    for (int d = 0; d < verdict.size(); d++) {
      Status status = verdict.status(d);
      RateLimitResponse.DescriptorStatus.Builder out =
          RateLimitResponse.DescriptorStatus.newBuilder()
              .setCode(code(status.code()))
              .setLimitRemaining((int) status.remaining());
      if (status.limit() != null) {
        out.setCurrentLimit(limit(status.limit(), status.rule() != null));
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

  private static RateLimitResponse.RateLimit limit(ReportedLimit limit, boolean configured) {
    RateLimitResponse.RateLimit cached = configured ? LIMITS.get(limit) : null;
    if (cached != null) {
      return cached;
    }
    RateLimitResponse.RateLimit built =
        RateLimitResponse.RateLimit.newBuilder()
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
    if (configured && LIMITS.size() < MAX_CACHED) {
      LIMITS.put(limit, built);
    }
    return built;
  }

  private static RateLimitResponse.Code code(Code code) {
    return code == Code.OK ? RateLimitResponse.Code.OK : RateLimitResponse.Code.OVER_LIMIT;
  }
}
