package io.slidingwindow.server.internal;

import java.time.Duration;
import java.util.List;

/** The transport-neutral request and answer types of {@link Decider}. */
public final class Decisions {

  private Decisions() {}

  /** One key/value pair of a descriptor. */
  public record Entry(String key, String value) {}

  /**
   * A limit sent with a descriptor in place of the configured one (Envoy's {@code
   * RateLimitOverride}).
   */
  public record LimitOverride(long requestsPerUnit, TimeUnitName unit) {}

  /**
   * One descriptor to decide.
   *
   * @param entries its key/value pairs, in order
   * @param hits permits it takes, or null to take the request's
   * @param override a limit to use instead of the configuration's, or null
   */
  public record Descriptor(List<Entry> entries, Long hits, LimitOverride override) {
    public Descriptor {
      entries = List.copyOf(entries);
    }
  }

  /** Envoy's response codes. */
  public enum Code {
    OK,
    OVER_LIMIT
  }

  /** What happened to one descriptor, for metrics. */
  public enum Outcome {
    /** Within every limit; the permits were counted. */
    OK,
    /** Over a limit; nothing was counted. */
    OVER_LIMIT,
    /** Over a limit of a rule in shadow mode, so answered OK; nothing was counted. */
    SHADOW_OVER_LIMIT,
    /** Matched an unlimited rule. */
    UNLIMITED,
    /** Matched no rule (or a replaced one), so answered OK without counting. */
    UNMATCHED;

    /** The lower-case name used as a metric tag. */
    public String tag() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /**
   * A limit as reported back: Envoy's {@code RateLimit}.
   *
   * @param name the rule's name, or for a window that is no named unit a description such as {@code
   *     "100 per PT1M30S"}
   * @param requestsPerUnit the permits per window
   * @param unit the window's unit; {@link TimeUnitName#UNKNOWN} when it is no named unit
   * @param window the window
   */
  public record ReportedLimit(
      String name, long requestsPerUnit, TimeUnitName unit, Duration window) {}

  /**
   * The answer for one descriptor.
   *
   * @param code OK or OVER_LIMIT (shadow-mode refusals are OK)
   * @param limit the binding limit, or null when no rule applies or the rule is unlimited
   * @param remaining permits left in the binding limit after this decision
   * @param untilReset for an allowed descriptor how long until every permit the binding limit
   *     counts has left its window; for a refused one how long until the same request would be
   *     allowed; null when not known
   * @param rule the matched rule's path, {@code "override"} or empty; a bounded metric tag
   * @param outcome what happened, for metrics
   */
  public record Status(
      Code code,
      ReportedLimit limit,
      long remaining,
      Duration untilReset,
      String rule,
      Outcome outcome) {}

  /**
   * The answer for a whole request.
   *
   * @param overall OVER_LIMIT if any descriptor is, else OK
   * @param statuses one per descriptor, in the request's order
   */
  public record Verdict(Code overall, List<Status> statuses) {}

  /** A request that cannot be decided: the caller sent something wrong. */
  public static final class BadRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The kinds of fault, which the front ends map to gRPC and HTTP statuses. */
    public enum Kind {
      INVALID_ARGUMENT,
      NOT_FOUND
    }

    private final Kind kind;

    BadRequest(Kind kind, String message) {
      super(message, null, false, false);
      this.kind = kind;
    }

    /** The kind of fault. */
    public Kind kind() {
      return kind;
    }
  }
}
