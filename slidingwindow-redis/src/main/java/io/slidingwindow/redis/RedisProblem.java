package io.slidingwindow.redis;

import java.util.Locale;

/**
 * A reason why Redis refuses this library's scripts that time will not cure: the limiter is set up
 * against the wrong server or with the wrong rights. Found in Redis's error replies ({@link
 * #of(String)}); the backend logs the first occurrence of each and reports the latest in {@link
 * RedisBackend#health(java.time.Duration)}.
 */
public enum RedisProblem {
  /**
   * {@code READONLY}: the server is a replica, which refuses writes. Point at the master; with a
   * client that follows the master (Sentinel), the master was demoted since (see {@link
   * #explanation(boolean)}).
   */
  READ_ONLY_REPLICA("the server is a read-only replica; point the limiter at the master"),
  /**
   * EVAL or EVALSHA is unknown or disabled: the server does not run Lua scripts (renamed commands,
   * or scripting turned off). The limiter needs them.
   */
  SCRIPTING_DISABLED("the server does not run Lua scripts (EVAL/EVALSHA unknown or disabled)"),
  /** {@code NOAUTH} or {@code WRONGPASS}: missing or wrong username or password. */
  AUTHENTICATION("the server refuses the credentials (NOAUTH or WRONGPASS)"),
  /** {@code NOPERM}: the user may not run scripts or touch the limiter's keys. */
  PERMISSION("the user lacks the ACL rights to run scripts on the limiter's keys (NOPERM)");

  private final String explanation;

  RedisProblem(String explanation) {
    this.explanation = explanation;
  }

  /**
   * One sentence saying what is wrong and what to do, for a client pointed at the server itself;
   * {@link #explanation(boolean)} for a client that may follow the master.
   */
  public String explanation() {
    return explanation;
  }

  /**
   * As {@link #explanation()}, for a client that does ({@code findsMasterAgain}, as {@link
   * RedisBackend#findsMasterAgain()} says: Sentinel) or does not find the master again by itself
   * after a {@code READONLY} reply. For such a client {@link #READ_ONLY_REPLICA} means a master
   * demoted since, which the client leaves for the new one, not a limiter pointed at a replica: its
   * explanation says so. Every other problem reads the same either way.
   */
  public String explanation(boolean findsMasterAgain) {
    if (findsMasterAgain && this == READ_ONLY_REPLICA) {
      return "the server was demoted to a read-only replica; the backend asks Sentinel for the"
          + " master again (at most once a second), and this clears once a call reaches it; if it"
          + " lasts, check that Sentinel names a reachable master";
    }
    return explanation;
  }

  /**
   * The problem an error reply of Redis reveals, or null if {@code errorReply} is null or names
   * none of them (such as {@code TRYAGAIN}, {@code BUSY}, or a bad argument).
   */
  public static RedisProblem of(String errorReply) {
    if (errorReply == null) {
      return null;
    }
    if (errorReply.startsWith("READONLY")) {
      return READ_ONLY_REPLICA;
    }
    if (errorReply.startsWith("NOAUTH") || errorReply.startsWith("WRONGPASS")) {
      return AUTHENTICATION;
    }
    if (errorReply.startsWith("NOPERM")) {
      return PERMISSION;
    }
    String lower = errorReply.toLowerCase(Locale.ROOT);
    boolean aboutScripts =
        lower.contains("eval") || lower.contains("script") || lower.contains("lua");
    if (aboutScripts && (lower.contains("unknown command") || lower.contains("disabled"))) {
      return SCRIPTING_DISABLED;
    }
    return null;
  }
}
