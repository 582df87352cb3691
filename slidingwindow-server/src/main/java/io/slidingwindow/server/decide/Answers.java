package io.slidingwindow.server.decide;

import io.slidingwindow.Limit;
import io.slidingwindow.server.config.Rule;
import io.slidingwindow.server.config.TimeUnitName;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Outcome;
import io.slidingwindow.server.decide.Decisions.ReportedLimit;
import io.slidingwindow.server.decide.Decisions.Status;
import java.time.Duration;
import java.util.List;

/** The statuses and reported limits {@link Decider} answers with. Stateless. */
final class Answers {

  private Answers() {}

  /**
   * The answer for a descriptor whose own limit cannot be counted: OVER_LIMIT, counting nothing.
   * Failing the call instead would let Envoy pass the whole request uncounted, and counting it
   * under a configured rule could grant more than the limit the descriptor asked for.
   */
  static Status badOverride(DecisionRequest request, int d) {
    TimeUnitName unit = request.overrideUnit(d);
    ReportedLimit limit = new ReportedLimit("", request.overrideRequests(d), unit, unit.length());
    return new Status(
        Code.OVER_LIMIT, limit, 0, null, null, Decisions.OVERRIDE_TAG, Outcome.BAD_OVERRIDE);
  }

  /** Descriptor {@code d}'s own limit, of a unit known. */
  static Limit overrideLimit(DecisionRequest request, int d) {
    return Limit.of(request.overrideRequests(d), request.overrideUnit(d).length());
  }

  /** A refusal by {@code rule}: OVER_LIMIT, or OK in shadow mode. */
  static Status refusal(Rule rule, ReportedLimit limit, long remaining, Duration retryAfter) {
    if (rule.shadowMode()) {
      return new Status(
          Code.OK, limit, remaining, retryAfter, rule, rule.path(), Outcome.SHADOW_OVER_LIMIT);
    }
    return new Status(
        Code.OVER_LIMIT, limit, remaining, retryAfter, rule, rule.path(), Outcome.OVER_LIMIT);
  }

  /** {@code limit} as reported, named {@code name} or, without a name or unit, by itself. */
  static ReportedLimit report(String name, Limit limit) {
    TimeUnitName unit = TimeUnitName.of(limit.window());
    String reported = name;
    if (reported.isEmpty() && unit == TimeUnitName.UNKNOWN) {
      reported = limit.permits() + " per " + limit.window();
    }
    return new ReportedLimit(reported, limit.permits(), unit, limit.window());
  }

  /** The index of the limit of the fewest permits. */
  static int smallest(List<Limit> limits) {
    int smallest = 0;
    for (int i = 1; i < limits.size(); i++) {
      if (limits.get(i).permits() < limits.get(smallest).permits()) {
        smallest = i;
      }
    }
    return smallest;
  }
}
