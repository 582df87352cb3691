package io.slidingwindow.http;

import io.slidingwindow.Decision;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Told of every rule an enforcer is built with and of every decision it makes, for metrics and
 * logs; the servlet filter, {@code @RateLimit} and the reactive filter all tell the same listener.
 * The decision methods run before the response is written, on the request's thread in a servlet
 * application and on an event-loop or I/O thread in a reactive one, so they must be quick, must
 * never block, and must be thread-safe; an exception they throw is logged and ignored.
 */
public interface RateLimitListener {

  /** A listener that does nothing. */
  RateLimitListener NONE = new RateLimitListener() {};

  /**
   * {@code rule} is being put in service, once per enforcer that holds it, before any decision; for
   * example to create its metrics at zero.
   */
  default void onRule(HttpRule rule) {}

  /** {@code rule} granted a request. */
  default void onAllowed(HttpRule rule, Decision decision) {}

  /** {@code rule} refused a request; when {@code dryRun} the request went on all the same. */
  default void onRefused(HttpRule rule, Decision decision, boolean dryRun) {}

  /**
   * A part of {@code rule} failed for a request: its key (a key function that threw or gave null,
   * or a key the limiter rejected; the request was then counted under its client address), its
   * condition (the rule applied), its cost (the request took the rule's cost) or its limiter (a
   * backend outage that the backend's own failure policy did not answer; the request went on
   * unlimited by the rule).
   */
  default void onError(HttpRule rule, RuntimeException error) {}

  /**
   * {@code rule}'s limiter had no room to track the key of a request (see {@link
   * io.slidingwindow.KeyOverflow}): its table held its most keys, or the client's most keys. The
   * decision, also reported to {@code onAllowed} or {@code onRefused}, was the overflow policy's.
   */
  default void onKeyOverflow(HttpRule rule) {}

  /**
   * The {@link PathFirewall} answered 400 to a request before any rule saw it.
   *
   * @param method the request's method
   * @param requestUri the raw request URI as received, chosen by the client: escape it before
   *     logging it, and never use it as a metric tag
   * @param reason why the path was refused, one of the firewall's fixed phrases (it never quotes
   *     the path)
   */
  default void onRejectedPath(String method, String requestUri, String reason) {}

  /**
   * {@code rule} granted a request whose key is {@code key}; enforcers call this method, which by
   * default calls {@link #onAllowed(HttpRule, Decision)}.
   *
   * @param key the key the limiter counted, as {@link io.slidingwindow.LimiterKeys#bounded} made
   *     it: chosen by the client, at most 256 characters; escape it before showing or logging it,
   *     never use it as a metric tag, and bound any memory kept per key
   */
  default void onAllowed(HttpRule rule, Decision decision, String key) {
    onAllowed(rule, decision);
  }

  /**
   * {@code rule} refused a request whose key is {@code key}; when {@code dryRun} the request went
   * on all the same. Enforcers call this method, which by default calls {@link #onRefused(HttpRule,
   * Decision, boolean)}.
   *
   * @param key the key the limiter counted: see {@link #onAllowed(HttpRule, Decision, String)}
   */
  default void onRefused(HttpRule rule, Decision decision, boolean dryRun, String key) {
    onRefused(rule, decision, dryRun);
  }

  /**
   * A listener that tells each of {@code listeners} in turn; one that throws is logged and does not
   * keep the others from being told.
   *
   * @throws IllegalArgumentException if {@code listeners} or one of them is null
   */
  static RateLimitListener composite(List<? extends RateLimitListener> listeners) {
    if (listeners == null || listeners.stream().anyMatch(Objects::isNull)) {
      throw new IllegalArgumentException("listeners must not be or hold null, was " + listeners);
    }
    List<RateLimitListener> all = List.copyOf(listeners);
    if (all.size() == 1) {
      return all.get(0);
    }
    System.Logger log = System.getLogger(RateLimitListener.class.getName());
    return new RateLimitListener() {
      private void each(Consumer<RateLimitListener> event) {
        for (RateLimitListener listener : all) {
          try {
            event.accept(listener);
          } catch (RuntimeException e) {
            log.log(Level.WARNING, "rate limit listener failed", e);
          }
        }
      }

      @Override
      public void onRule(HttpRule rule) {
        each(l -> l.onRule(rule));
      }

      @Override
      public void onAllowed(HttpRule rule, Decision decision) {
        each(l -> l.onAllowed(rule, decision));
      }

      @Override
      public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
        each(l -> l.onRefused(rule, decision, dryRun));
      }

      @Override
      public void onError(HttpRule rule, RuntimeException error) {
        each(l -> l.onError(rule, error));
      }

      @Override
      public void onKeyOverflow(HttpRule rule) {
        each(l -> l.onKeyOverflow(rule));
      }

      @Override
      public void onRejectedPath(String method, String requestUri, String reason) {
        each(l -> l.onRejectedPath(method, requestUri, reason));
      }

      @Override
      public void onAllowed(HttpRule rule, Decision decision, String key) {
        each(l -> l.onAllowed(rule, decision, key));
      }

      @Override
      public void onRefused(HttpRule rule, Decision decision, boolean dryRun, String key) {
        each(l -> l.onRefused(rule, decision, dryRun, key));
      }

      @Override
      public String toString() {
        return "RateLimitListener.composite" + all;
      }
    };
  }
}
