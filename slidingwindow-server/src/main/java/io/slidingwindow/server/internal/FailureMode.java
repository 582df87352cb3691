package io.slidingwindow.server.internal;

import java.util.Locale;

/**
 * A domain's {@code failure_policy}: what answers while Redis fails, when counts live there. In
 * memory nothing fails, and it has no effect.
 */
public enum FailureMode {
  /** Allow the request (the default, as Envoy's {@code failure_mode_deny: false}). */
  OPEN,
  /** Refuse the request. */
  CLOSED,
  /** Count in this instance's memory with the same limits until Redis answers again. */
  LOCAL;

  static FailureMode parse(String name) {
    for (FailureMode mode : values()) {
      if (mode.name().equals(name.toUpperCase(Locale.ROOT))) {
        return mode;
      }
    }
    return null;
  }
}
