package io.slidingwindow.server.internal;

import io.slidingwindow.Limit;
import java.util.List;

/**
 * One configured limit: the {@code rate_limit} (and {@code rate_limits}) of one descriptor in a
 * domain's tree. Immutable.
 *
 * @param domain the domain it belongs to
 * @param path the descriptor path below the domain, as envoyproxy/ratelimit writes it, for example
 *     {@code message_type_marketing.to_number}
 * @param limits the sliding windows every matching request must fit in; empty when {@code
 *     unlimited} or {@code blocked}
 * @param unlimited whether matching requests are always allowed without counting
 * @param blocked whether matching requests are always refused ({@code requests_per_unit: 0})
 * @param blockedUnit for a blocked rule, the unit to report
 * @param shadowMode whether refusals are reported as OK (they still are not counted)
 * @param name the name other rules can replace, or empty
 * @param replaces the names of rules this one replaces when both match one request
 * @param source where it is written, for example {@code limits.yaml line 12}
 * @param failureMode what answers for this rule while a shared store (Redis) fails
 */
public record Rule(
    String domain,
    String path,
    List<Limit> limits,
    boolean unlimited,
    boolean blocked,
    TimeUnitName blockedUnit,
    boolean shadowMode,
    String name,
    List<String> replaces,
    String source,
    FailureMode failureMode) {

  public Rule {
    limits = List.copyOf(limits);
    replaces = List.copyOf(replaces);
  }

  /**
   * What identifies the counts of this rule across reloads: a rule with the same domain, path,
   * limits and failure mode keeps counting where the old one stopped.
   */
  Object identity() {
    return List.of(domain, path, limits, failureMode);
  }

  /** Whether matching requests are counted against limits. */
  boolean counts() {
    return !limits.isEmpty();
  }
}
