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
 *
 * <p>A {@code READONLY} reply to a client that finds the master again ({@link
 * ScriptClient#findsMasterAgain()}, Sentinel) is no mistake of the configuration: the master was
 * demoted, and the client is asking Sentinel for the new one. It is logged at WARNING, saying so,
 * and reported in {@link #latest()} as any other problem until a call succeeds.
 */
final class ProblemReport {

  private static final Logger LOG = System.getLogger("io.slidingwindow.redis");

  private final String server;
  private final boolean findsMasterAgain;
  private final Set<RedisProblem> logged = EnumSet.noneOf(RedisProblem.class);
  private volatile RedisProblem latest;
  private volatile String latestReply;

  /** Of a client that does not find the master again by itself. */
  ProblemReport(String server) {
    this(server, false);
  }

  /**
   * Of the client of {@code server}; {@code findsMasterAgain} as {@link
   * ScriptClient#findsMasterAgain()} says.
   */
  ProblemReport(String server, boolean findsMasterAgain) {
    this.server = server;
    this.findsMasterAgain = findsMasterAgain;
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
    if (first && findsMasterAgain && problem == RedisProblem.READ_ONLY_REPLICA) {
      LOG.log(
          Level.WARNING,
          "slidingwindow: Redis at {0} answers READONLY: the master was demoted to a replica. The"
              + " backend asks Sentinel for the master again (at most once a second); until a call"
              + " reaches it, every decision is the failure policy''s. Redis replied: {1}",
          server,
          errorReply);
    } else if (first) {
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
