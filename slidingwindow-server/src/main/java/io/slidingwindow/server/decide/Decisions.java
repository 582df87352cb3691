package io.slidingwindow.server.decide;

import io.slidingwindow.server.config.Rule;
import io.slidingwindow.server.config.TimeUnitName;
import java.time.Duration;
import java.util.Locale;

/** The transport-neutral answer types of {@link Decider}. */
public final class Decisions {

  private Decisions() {}

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
    UNMATCHED,
    /**
     * Carried a limit of its own that cannot be counted (it names no unit, or its domain holds its
     * most such limits), so answered OVER_LIMIT; nothing was counted.
     */
    BAD_OVERRIDE;

    private final String tag = name().toLowerCase(Locale.ROOT);

    /** The lower-case name used as a metric tag. */
    public String tag() {
      return tag;
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

  /** The metric tag of descriptors that carried a limit of their own. */
  public static final String OVERRIDE_TAG = "override";

  /**
   * The answer for one descriptor.
   *
   * @param code OK or OVER_LIMIT (shadow-mode refusals are OK)
   * @param limit the binding limit, or null when no rule applies or the rule is unlimited
   * @param remaining permits left in the binding limit after this decision
   * @param untilReset for an allowed descriptor how long until every permit the binding limit
   *     counts has left its window; for a refused one how long until the same request would be
   *     allowed; null when not known
   * @param rule the configured rule that decided, or null (none matched, or the descriptor's own
   *     limit decided)
   * @param tag the matched rule's path, {@value #OVERRIDE_TAG} or empty; a bounded metric tag
   * @param outcome what happened, for metrics
   */
  public record Status(
      Code code,
      ReportedLimit limit,
      long remaining,
      Duration untilReset,
      Rule rule,
      String tag,
      Outcome outcome) {}

  /**
   * The answer for a whole request: OVER_LIMIT if any descriptor is, and one status each. Holds the
   * array it is given.
   */
  public static final class Verdict {
    private final Status single;
    private final Status[] statuses;
    private final Code overall;

    /** The verdict of a request of one descriptor. */
    public Verdict(Status status) {
      this.single = status;
      this.statuses = null;
      this.overall = status.code();
    }

    /** The verdict of a request of these descriptors' statuses, in order. */
    public Verdict(Status... statuses) {
      this.single = null;
      this.statuses = statuses;
      Code code = Code.OK;
      for (Status status : statuses) {
        if (status.code() == Code.OVER_LIMIT) {
          code = Code.OVER_LIMIT;
        }
      }
      this.overall = code;
    }

    /** OVER_LIMIT if any descriptor is, else OK. */
    public Code overall() {
      return overall;
    }

    /** The number of statuses: one per descriptor. */
    public int size() {
      return statuses == null ? 1 : statuses.length;
    }

    /** The status of descriptor {@code d}, in the request's order. */
    public Status status(int d) {
      if (statuses == null) {
        if (d != 0) {
          throw new IndexOutOfBoundsException("descriptor " + d + " of 1");
        }
        return single;
      }
      return statuses[d];
    }
  }

  /** A request that cannot be decided: the caller sent something wrong. */
  public static final class BadRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** The kinds of fault, which the front ends map to gRPC and HTTP statuses. */
    public enum Kind {
      INVALID_ARGUMENT,
      NOT_FOUND;

      private final String tag = name().toLowerCase(Locale.ROOT);

      /** The lower-case name used as a metric tag. */
      public String tag() {
        return tag;
      }
    }

    private final Kind kind;

    /** A fault of {@code kind}, with one line that says what is wrong. */
    public BadRequest(Kind kind, String message) {
      super(message, null, false, false);
      this.kind = kind;
    }

    /** A malformed request. */
    public static BadRequest invalid(String message) {
      return new BadRequest(Kind.INVALID_ARGUMENT, message);
    }

    /** The kind of fault. */
    public Kind kind() {
      return kind;
    }
  }
}
