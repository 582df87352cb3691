package io.slidingwindow.http;

import io.slidingwindow.Decision;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Tells a {@link RateLimitListener} of an event and logs instead of passing on what it throws, so
 * that a faulty listener never changes an answer. A failure of a rule's part is logged at WARNING
 * with its stack trace the first time for each rule and part (a client can cause one on every
 * request), then at DEBUG without it. Thread-safe if the listener is.
 */
final class ListenerCalls {

  private static final System.Logger LOG = System.getLogger(EnforcementCore.class.getName());

  private final RateLimitListener listener;

  /** The rules and parts whose failure has been logged at WARNING: at most rules times parts. */
  private final Set<String> warned = ConcurrentHashMap.newKeySet();

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

  /** Tells the listener that {@code rule} had no room for a key, and logs it once per rule. */
  void keyOverflow(HttpRule rule) {
    try {
      listener.onKeyOverflow(rule);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
    if (warned.add(rule.name() + "\u0000overflow")) {
      LOG.log(
          Level.WARNING,
          "rate limit rule ''{0}'' has no room for new keys: its limiter tracks its most keys, or"
              + " a client''s most keys, with live windows; new keys are answered by its overflow"
              + " policy (refused by default) until keys expire. Logged once per rule.",
          rule.name());
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
   * Tells the listener that a part of {@code rule} failed, and logs it with {@code consequence}
   * (what became of the request, a fixed phrase per part): at WARNING with the stack trace the
   * first time for the rule and consequence, at DEBUG without it after that.
   */
  void error(HttpRule rule, RuntimeException error, String consequence) {
    try {
      listener.onError(rule, error);
    } catch (RuntimeException e) {
      LOG.log(Level.WARNING, "rate limit listener failed", e);
    }
    String message = "rate limit rule '" + rule.name() + "' failed; " + consequence;
    if (warned.add(rule.name() + '\u0000' + consequence)) {
      LOG.log(Level.WARNING, message + " (logged once; later failures at DEBUG)", error);
    } else if (LOG.isLoggable(Level.DEBUG)) {
      LOG.log(Level.DEBUG, message + ": " + error);
    }
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
