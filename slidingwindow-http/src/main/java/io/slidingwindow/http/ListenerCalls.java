package io.slidingwindow.http;

import io.slidingwindow.Decision;
import java.lang.System.Logger.Level;
import java.util.concurrent.CompletionException;

/**
 * Tells a {@link RateLimitListener} of an event and logs instead of passing on what it throws, so
 * that a faulty listener never changes an answer. Thread-safe if the listener is.
 */
final class ListenerCalls {

  private static final System.Logger LOG = System.getLogger(EnforcementCore.class.getName());

  private final RateLimitListener listener;

  ListenerCalls(RateLimitListener listener) {
    this.listener = listener;
  }

  void rule(HttpRule rule) {
    try {
      listener.onRule(rule);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
  }

  void allowed(HttpRule rule, Decision decision, String key) {
    try {
      listener.onAllowed(rule, decision, key);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
  }

  void refused(HttpRule rule, Decision decision, boolean dryRun, String key) {
    try {
      listener.onRefused(rule, decision, dryRun, key);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
  }

  void rejectedPath(String method, String rawPath, String reason) {
    try {
      listener.onRejectedPath(method, rawPath, reason);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
  }

  /**
   * Tells the listener that a part of {@code rule} failed, and logs it at WARNING with {@code
   * consequence} (what became of the request).
   */
  void error(HttpRule rule, RuntimeException error, String consequence) {
    try {
      listener.onError(rule, error);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
    LOG.log(Level.WARNING, "rate limit rule '" + rule.name() + "' failed; " + consequence, error);
  }

  /** The cause of an asynchronous failure, as a runtime exception for the listener. */
  static RuntimeException asRuntime(Throwable error) {
    Throwable cause = error;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    if (cause instanceof RuntimeException runtime) {
      return runtime;
    }
    return new IllegalStateException(
        cause == null ? "the limiter answered nothing" : "the limiter failed: " + cause, cause);
  }
}
