package io.slidingwindow.server;

/**
 * A rate limit configuration that cannot be used. The message names the file and, where the fault
 * lies at one place in it, the line (counted from 1), for example {@code "limits.yaml line 7:
 * requests_per_unit must be a whole number from 0 to 4294967295, was 'ten'"}.
 */
public final class ConfigException extends Exception {

  private static final long serialVersionUID = 1L;

  /** Creates an exception with {@code message}, which names the file and line. */
  public ConfigException(String message) {
    super(message);
  }

  /** Creates an exception with {@code message}, which names the file and line, and its cause. */
  public ConfigException(String message, Throwable cause) {
    super(message, cause);
  }
}
