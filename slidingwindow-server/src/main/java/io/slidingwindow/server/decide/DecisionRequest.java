package io.slidingwindow.server.decide;

import io.slidingwindow.server.config.Descriptors;
import io.slidingwindow.server.config.TimeUnitName;

/**
 * One request to decide, read by index from the transport's own message (a protobuf message, parsed
 * JSON), so that deciding copies nothing out of it.
 */
public interface DecisionRequest extends Descriptors {

  /** The configuration domain. */
  String domain();

  /**
   * The request's {@code hits_addend}, not negative; 0 means 1. Any size: one above 2^32 - 1 is
   * more than any limit holds (a value above 2^63 - 1 reads as {@link Long#MAX_VALUE}).
   */
  long hits();

  /**
   * Descriptor {@code d}'s own {@code hits_addend}, which replaces the request's, or -1 if it has
   * none; of any size, as {@link #hits()}.
   */
  long hits(int d);

  /**
   * Whether descriptor {@code d} carries a limit of its own (Envoy's {@code RateLimitOverride});
   * none by default.
   */
  default boolean hasOverride(int d) {
    return false;
  }

  /** The override's {@code requests_per_unit}, an unsigned 32-bit value; 0 by default. */
  default long overrideRequests(int d) {
    return 0;
  }

  /** The override's unit; {@link TimeUnitName#UNKNOWN} when it names none, as by default. */
  default TimeUnitName overrideUnit(int d) {
    return TimeUnitName.UNKNOWN;
  }

  /**
   * The override's unit as its number in Envoy's {@code RateLimitUnit}, for the warning of a unit
   * {@link #overrideUnit} does not know (a newer Envoy's); 0, {@code UNKNOWN}, by default.
   */
  default int overrideUnitNumber(int d) {
    return 0;
  }
}
