package io.slidingwindow.server.decide;

import static io.slidingwindow.server.decide.Decider.MAX_DESCRIPTORS;
import static io.slidingwindow.server.decide.Decider.MAX_DOMAIN_CHARS;
import static io.slidingwindow.server.decide.Decider.MAX_ENTRIES;
import static io.slidingwindow.server.decide.Decider.MAX_TEXT_CHARS;
import static io.slidingwindow.server.decide.Decider.MAX_UINT32;

import io.slidingwindow.server.config.RateLimitConfig;
import io.slidingwindow.server.decide.Decisions.BadRequest;

/**
 * The bounds every request must keep, checked before anything is counted: a domain that is
 * configured and at most {@value Decider#MAX_DOMAIN_CHARS} characters, 1 to {@value
 * Decider#MAX_DESCRIPTORS} descriptors of at most {@value Decider#MAX_ENTRIES} entries, keys that
 * are not empty, keys of at most {@value Decider#MAX_TEXT_CHARS} characters. A value may be of any
 * length (the request's size bounds it): it often comes from a client's header, and a request
 * refused for it would answer Envoy with an error, which Envoy, unless its {@code
 * failure_mode_deny} is set, takes as leave to let the request through without any of its
 * descriptors counted. A long value is counted under its digest ({@code LimiterKeys.bounded}), as
 * every value over 256 characters is. For the same reason a hits_addend of any size is no fault:
 * one above {@value Decider#MAX_UINT32} is more than any limit holds, and {@link Decider} answers
 * its descriptor OVER_LIMIT without counting it, as it answers any hits above a limit's permits. A
 * descriptor without entries is no fault: Envoy sends one when each of its rate limit's actions is
 * a {@code request_headers} with {@code skip_if_absent} whose header the client left out; it
 * selects no rule (answered OK, as envoyproxy/ratelimit answers it) and the request's other
 * descriptors are decided and counted. Stateless.
 */
final class RequestChecks {

  private RequestChecks() {}

  /**
   * Checks {@code request} against {@code config}; a descriptor's own limit only when {@code
   * overrides} are honoured.
   *
   * @throws BadRequest NOT_FOUND for an unknown domain, INVALID_ARGUMENT for a bound broken
   */
  static void check(RateLimitConfig config, DecisionRequest request, boolean overrides) {
    String domain = request.domain();
    if (domain == null || domain.isEmpty()) {
      throw BadRequest.invalid("domain must not be empty");
    }
    if (domain.length() > MAX_DOMAIN_CHARS) {
      throw BadRequest.invalid(
          "domain must have at most " + MAX_DOMAIN_CHARS + " characters, had " + domain.length());
    }
    if (!config.hasDomain(domain)) {
      throw new BadRequest(BadRequest.Kind.NOT_FOUND, "unknown domain '" + domain + "'");
    }
    int n = request.count();
    if (n == 0) {
      throw BadRequest.invalid("descriptors must not be empty");
    }
    if (n > MAX_DESCRIPTORS) {
      throw BadRequest.invalid("at most " + MAX_DESCRIPTORS + " descriptors, had " + n);
    }
    if (request.hits() < 0) {
      throw BadRequest.invalid("hits_addend must not be negative, was " + request.hits());
    }
    for (int d = 0; d < n; d++) {
      checkDescriptor(request, d, overrides);
    }
  }

  private static void checkDescriptor(DecisionRequest request, int d, boolean overrides) {
    int entries = request.entries(d); // none: it selects no rule (see the class comment)
    if (entries > MAX_ENTRIES) {
      throw BadRequest.invalid(
          "descriptor " + d + " has " + entries + " entries, at most " + MAX_ENTRIES);
    }
    for (int e = 0; e < entries; e++) {
      String key = request.key(d, e);
      String value = request.value(d, e);
      if (key == null || key.isEmpty()) {
        throw BadRequest.invalid("descriptor " + d + " has an entry with an empty key");
      }
      if (value == null) {
        throw BadRequest.invalid("descriptor " + d + " entry '" + key + "' has no value");
      }
      if (key.length() > MAX_TEXT_CHARS) {
        throw BadRequest.invalid(
            "descriptor " + d + " has an entry key longer than " + MAX_TEXT_CHARS + " characters");
      }
    }
    if (request.hits(d) < -1) { // -1: none; any size above is more than a limit holds
      throw BadRequest.invalid(
          "descriptor " + d + " hits_addend must not be negative, was " + request.hits(d));
    }
    if (overrides && request.hasOverride(d)) {
      // An override without a unit is no fault of the request: Decider answers it OVER_LIMIT.
      if (request.overrideRequests(d) < 0 || request.overrideRequests(d) > MAX_UINT32) {
        throw BadRequest.invalid("descriptor " + d + " limit override is too large");
      }
    }
  }
}
