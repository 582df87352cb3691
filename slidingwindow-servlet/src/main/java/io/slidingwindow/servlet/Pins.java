package io.slidingwindow.servlet;

import jakarta.servlet.http.HttpServletRequest;
import java.util.function.Supplier;

/**
 * The enforcer that a source of reloadable rules gave for a request, kept as a request attribute:
 * whatever reads the rules from that very source instance for the same request later (a filter
 * built on it, in every later dispatch of the request, or an enforcer that follows it, called by
 * the application) takes that enforcer, so that rules replaced in between (a reload) do not count
 * the request again.
 *
 * @param source the source
 * @param enforcer the enforcer it gave for the request
 * @param earlier the pin of another source on the same request, or null
 */
record Pins(Supplier<RateLimitEnforcer> source, RateLimitEnforcer enforcer, Pins earlier) {

  private static final String ATTRIBUTE = Pins.class.getName();

  /** The enforcer for {@code request}: the one {@code source} gave it first, else the one now. */
  static RateLimitEnforcer enforcerFor(
      Supplier<RateLimitEnforcer> source, HttpServletRequest request) {
    Pins latest = request.getAttribute(ATTRIBUTE) instanceof Pins pins ? pins : null;
    for (Pins pins = latest; pins != null; pins = pins.earlier()) {
      if (pins.source() == source) {
        return pins.enforcer();
      }
    }
    RateLimitEnforcer now = source.get();
    request.setAttribute(ATTRIBUTE, new Pins(source, now, latest));
    return now;
  }
}
