package io.slidingwindow.server.grpc;

import io.slidingwindow.server.config.TimeUnitName;
import io.slidingwindow.server.decide.DecisionRequest;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;

/** A {@link DecisionRequest} read from Envoy's {@code RateLimitRequest}, copying nothing. */
public final class ProtobufRequest implements DecisionRequest {

  private final RateLimitRequest request;

  /** A view of {@code request}. */
  public ProtobufRequest(RateLimitRequest request) {
    this.request = request;
  }

  @Override
  public String domain() {
    return request.getDomain();
  }

  @Override
  public long hits() {
    return Integer.toUnsignedLong(request.getHitsAddend());
  }

  @Override
  public int count() {
    return request.getDescriptorsCount();
  }

  @Override
  public int entries(int d) {
    return request.getDescriptors(d).getEntriesCount();
  }

  @Override
  public String key(int d, int e) {
    return request.getDescriptors(d).getEntries(e).getKey();
  }

  @Override
  public String value(int d, int e) {
    return request.getDescriptors(d).getEntries(e).getValue();
  }

  @Override
  public long hits(int d) {
    RateLimitDescriptor descriptor = request.getDescriptors(d);
    if (!descriptor.hasHitsAddend()) {
      return -1;
    }
    long hits = descriptor.getHitsAddend().getValue();
    return hits < 0 ? Long.MAX_VALUE : hits; // a uint64 above 2^63 - 1: far over any bound
  }

  @Override
  public boolean hasOverride(int d) {
    return request.getDescriptors(d).hasLimit();
  }

  @Override
  public long overrideRequests(int d) {
    return Integer.toUnsignedLong(request.getDescriptors(d).getLimit().getRequestsPerUnit());
  }

  @Override
  public TimeUnitName overrideUnit(int d) {
    return switch (request.getDescriptors(d).getLimit().getUnit()) {
      case SECOND -> TimeUnitName.SECOND;
      case MINUTE -> TimeUnitName.MINUTE;
      case HOUR -> TimeUnitName.HOUR;
      case DAY -> TimeUnitName.DAY;
      case MONTH -> TimeUnitName.MONTH;
      case YEAR -> TimeUnitName.YEAR;
      default -> TimeUnitName.UNKNOWN;
    };
  }

  @Override
  public int overrideUnitNumber(int d) {
    return request.getDescriptors(d).getLimit().getUnitValue();
  }
}
