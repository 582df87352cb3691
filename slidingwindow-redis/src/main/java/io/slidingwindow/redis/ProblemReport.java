package io.slidingwindow.redis;

import java.lang.System.Logger;
import java.lang.System.Logger.Level;
import java.util.EnumSet;
import java.util.Set;

/**
 * Remembers the latest {@link RedisProblem} one backend met and logs each kind once, at ERROR,
 * naming the server and the cause: without it, a limiter pointed at a replica or without the right
 * to run scripts would answer by its failure policy forever without a word. A successful call
 * clears the latest problem; a kind already logged is not logged again. Thread-safe; a successful
 * call costs one volatile read.
 */
final class ProblemReport {

  private static final Logger LOG = System.getLogger("io.slidingwindow.redis");

  private final String server;
  private final Set<RedisProblem> logged = EnumSet.noneOf(RedisProblem.class);
  private volatile RedisProblem latest;
  private volatile String latestReply;

  ProblemReport(String server) {
    this.server = server;
  }

  /** Told of every error reply a call failed with; logs a problem the first time it is seen. */
  void onErrorReply(String errorReply) {
    RedisProblem problem = RedisProblem.of(errorReply);
    if (problem == null) {
      return;
    }
    latestReply = errorReply;
    latest = problem;
    boolean first;
    synchronized (logged) {
      first = logged.add(problem);
    }
    if (first) {
      LOG.log(
          Level.ERROR,
          "slidingwindow: Redis at {0} refuses the rate limiter''s scripts: {1}. Until this is"
              + " fixed, every decision is the failure policy''s. Redis replied: {2}",
          server,
          problem.explanation(),
          errorReply);
    }
  }

  /** Told of every successful call. */
  void onSuccess() {
    if (latest != null) {
      latest = null;
    }
  }

  /** The latest problem not cleared by a success since, or null. */
  RedisProblem latest() {
    return latest;
  }

  /** The error reply that revealed {@link #latest()}. */
  String latestReply() {
    return latestReply;
  }
}
