package io.slidingwindow.redis;

/**
 * A call to Redis that failed: Redis replied with an error, the call got no answer (no connection,
 * a dropped one), or no answer came within the command timeout (then the cause is a {@link
 * java.util.concurrent.TimeoutException}). Thrown by {@link RedisCounters}, which has no safe
 * answer of its own; limiters never throw it (their failure policy answers instead). The cause,
 * when there is one, is the client library's failure.
 */
public final class RedisCallException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  /** A failure described by {@code message}, caused by {@code cause} (may be null). */
  public RedisCallException(String message, Throwable cause) {
    super(message, cause);
  }
}
