package io.slidingwindow.redis.lettuce;

import io.lettuce.core.RedisConnectionException;
import io.slidingwindow.redis.RedisProblem;
import io.slidingwindow.redis.RedisUris;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * How a backend's first connect is made and how its failure is told: tried again when Lettuce lost
 * Redis's reply, and explained when the reply names a {@link RedisProblem}.
 *
 * <p>The lost reply: Lettuce (6.4 to the current 7.x) reports a connect whose handshake failed and
 * closed the channel before Lettuce's own connect listener ran as {@code IllegalStateException:
 * RedisHandshakeHandler not registered}, without the reply that failed the handshake. This
 * project's tests met it once, on a loaded machine, where a Sentinel refused missing credentials,
 * and the caller would have been told nothing about them. A connect has no effect on Redis's data,
 * so it is tried again, at most {@link #ATTEMPTS} times in all, for a failure that carries the
 * reply.
 */
final class LettuceConnects {

  /** How many times a connect is tried in all while its failures have lost Redis's reply. */
  static final int ATTEMPTS = 3;

  /** Lettuce's message for a connect whose handshake failed before it was looked at. */
  static final String LOST_HANDSHAKE = "RedisHandshakeHandler not registered";

  private LettuceConnects() {}

  /**
   * Runs {@code connect}, again while it fails having lost Redis's reply, at most {@link #ATTEMPTS}
   * times in all; throws the last failure.
   */
  static <C> C connect(Supplier<C> connect) {
    for (int attempt = 1; ; attempt++) {
      try {
        return connect.get();
      } catch (RuntimeException e) {
        if (attempt >= ATTEMPTS || !lostReply(e)) {
          throw e;
        }
      }
    }
  }

  /**
   * Whether {@code failure}, its causes or what they suppressed hold Lettuce's failure for a
   * handshake it did not see (see the class comment).
   */
  static boolean lostReply(Throwable failure) {
    for (Throwable t : causesAndSuppressed(failure)) {
      if (t instanceof IllegalStateException && LOST_HANDSHAKE.equals(t.getMessage())) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code failure} to connect, as a {@link RedisConnectionException} that says why when Redis's
   * reply in its causes, or in what they suppressed (Lettuce keeps there the failures of the other
   * Sentinels it tried), names a {@link RedisProblem} (wrong credentials, say), and names the
   * server with its password masked; {@code failure} itself otherwise.
   */
  static RuntimeException explained(RuntimeException failure, String description) {
    for (Throwable t : causesAndSuppressed(failure)) {
      RedisProblem problem = RedisProblem.of(t.getMessage());
      if (problem != null) {
        return new RedisConnectionException(
            "cannot connect to "
                + RedisUris.mask(description)
                + ": "
                + problem.explanation()
                + "; Redis replied: "
                + t.getMessage(),
            failure);
      }
    }
    return failure;
  }

  /**
   * {@code failure} and everything under it, each once: the chain of causes first, then what each
   * suppressed, depth first.
   */
  private static List<Throwable> causesAndSuppressed(Throwable failure) {
    Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Throwable> found = new ArrayList<>();
    Deque<Throwable> todo = new ArrayDeque<>();
    todo.push(failure);
    while (!todo.isEmpty()) {
      Throwable t = todo.pop();
      if (!seen.add(t)) {
        continue;
      }
      found.add(t);
      Throwable[] suppressed = t.getSuppressed();
      for (int i = suppressed.length - 1; i >= 0; i--) {
        todo.push(suppressed[i]);
      }
      if (t.getCause() != null) {
        todo.push(t.getCause()); // on top: the cause chain comes first
      }
    }
    return found;
  }
}
