package io.slidingwindow.webflux;

import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.webflux.internal.ReactiveKeySource;
import java.util.function.Supplier;
import org.springframework.web.server.ServerWebExchange;

/**
 * The rules that a source of replaceable rules gave for an exchange the first time a filter over it
 * looked, kept as an exchange attribute: every later pass over the exchange of a filter over the
 * same source takes them, so that rules replaced in between (a configuration reload) neither count
 * the exchange again by a rule the reload kept nor leave it half judged by two sets of rules.
 *
 * @param source the source of rules, matched by identity
 * @param core the rules it gave for the exchange
 * @param earlier the rules another source gave for the exchange, or null
 */
record Pinned(
    Supplier<EnforcementCore<ReactiveKeySource>> source,
    EnforcementCore<ReactiveKeySource> core,
    Pinned earlier) {

  private static final String ATTRIBUTE = Pinned.class.getName();

  /**
   * The rules {@code source} gave for {@code exchange} first; if it gave none yet, those it gives
   * now, which are kept for the exchange's later passes.
   */
  static EnforcementCore<ReactiveKeySource> coreFor(
      ServerWebExchange exchange, Supplier<EnforcementCore<ReactiveKeySource>> source) {
    Pinned latest = exchange.getAttribute(ATTRIBUTE);
    for (Pinned pinned = latest; pinned != null; pinned = pinned.earlier) {
      if (pinned.source == source) {
        return pinned.core;
      }
    }
    EnforcementCore<ReactiveKeySource> now = source.get();
    exchange.getAttributes().put(ATTRIBUTE, new Pinned(source, now, latest));
    return now;
  }
}
