package io.slidingwindow.redis;

import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A standalone redis-server and a backend on it that belong to one test class, so that the script
 * calls counted by {@code INFO commandstats} are that class's alone.
 */
final class OwnRedis implements AutoCloseable {

  private static final Pattern CALLS = Pattern.compile("cmdstat_eval(?:sha)?:calls=(\\d+)");

  final RedisServerProcess server;
  final RedisBackend backend;

  OwnRedis() {
    server = RedisServerProcess.start();
    try {
      backend = RedisBackend.standalone(server.uri());
    } catch (RuntimeException e) {
      server.close();
      throw e;
    }
  }

  /** How many times Redis has run a script (EVALSHA and EVAL) so far. */
  long scriptCalls() {
    Matcher m = CALLS.matcher(server.cli("INFO", "commandstats"));
    long calls = 0;
    while (m.find()) {
      calls += Long.parseLong(m.group(1));
    }
    return calls;
  }

  @Override
  public void close() {
    try {
      backend.close();
    } finally {
      server.close();
    }
  }
}
