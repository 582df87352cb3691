package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisConnectionException;
import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A limiter set up against the wrong server says so: once, in a log line naming the cause, and in
 * its backend's health, while its failure policy answers.
 */
class RedisHealthIT {

  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);
  private static final Logger LOG = Logger.getLogger("io.slidingwindow.redis");

  private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
  private final Handler capture =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          logged.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  @BeforeEach
  void captureLog() {
    LOG.addHandler(capture);
  }

  @AfterEach
  void releaseLog() {
    LOG.removeHandler(capture);
  }

  private static RedisRateLimiter failClosedLimiter(RedisBackend backend) {
    return RedisRateLimiter.builder(backend)
        .limit(Limit.of(5, Duration.ofSeconds(10)))
        .failurePolicy(FailurePolicy.failClosed())
        .commandTimeout(Duration.ofSeconds(1))
        .batching(false)
        .build();
  }

  /** Decides five times; every answer must be the fail-closed policy's. */
  private static void decideFiveTimesRefused(RedisRateLimiter limiter) {
    for (int i = 0; i < 5; i++) {
      Decision d = limiter.decide("client-" + i, 1);
      assertThat(d.allowed()).as("fail-closed answer %d", i).isFalse();
    }
  }

  private List<LogRecord> errorsAbout(RedisProblem problem) {
    return logged.stream()
        .filter(r -> Level.SEVERE.equals(r.getLevel()))
        .filter(r -> formatted(r).contains(problem.explanation()))
        .toList();
  }

  private static String formatted(LogRecord record) {
    return new java.util.logging.SimpleFormatter().formatMessage(record);
  }

  @Test
  void health_healthyServer_isUpAndLogsNothing() {
    try (RedisServerProcess redis = RedisServerProcess.start();
        RedisBackend backend = RedisBackend.standalone(redis.uri())) {
      assertThat(backend.health(PROBE_TIMEOUT)).isEqualTo(new RedisHealth(true, null, "OK"));
      assertThat(failClosedLimiter(backend).decide("a", 1).allowed()).isTrue();
      assertThat(backend.latestProblem()).isNull();
      assertThat(logged).isEmpty();
    }
  }

  @Test
  void limiterOnReplica_saysReadOnlyOnceAndHealthIsDown() {
    try (RedisServerProcess master = RedisServerProcess.start();
        RedisServerProcess replica = RedisServerProcess.start()) {
      replica.cli("REPLICAOF", master.host(), Integer.toString(master.port()));
      try (RedisBackend backend = RedisBackend.standalone(replica.uri())) {
        RedisRateLimiter limiter = failClosedLimiter(backend);

        decideFiveTimesRefused(limiter);

        assertThat(backend.latestProblem()).isEqualTo(RedisProblem.READ_ONLY_REPLICA);
        List<LogRecord> errors = errorsAbout(RedisProblem.READ_ONLY_REPLICA);
        assertThat(errors).hasSize(1);
        assertThat(formatted(errors.get(0)))
            .contains(replica.uri())
            .contains("READONLY")
            .contains("failure policy");
        RedisHealth health = backend.health(PROBE_TIMEOUT);
        assertThat(health.up()).isFalse();
        assertThat(health.problem()).isEqualTo(RedisProblem.READ_ONLY_REPLICA);
        assertThat(health.detail()).startsWith("READONLY");
      }
    }
  }

  @Test
  void limiterWithoutScripting_saysScriptingDisabledOnceAndHealthIsDown() {
    try (RedisServerProcess redis =
            RedisServerProcess.startWithConfig(
                "rename-command EVAL \"\"", "rename-command EVALSHA \"\"");
        RedisBackend backend = RedisBackend.standalone(redis.uri())) {
      RedisRateLimiter limiter = failClosedLimiter(backend);

      decideFiveTimesRefused(limiter);

      assertThat(backend.latestProblem()).isEqualTo(RedisProblem.SCRIPTING_DISABLED);
      assertThat(errorsAbout(RedisProblem.SCRIPTING_DISABLED)).hasSize(1);
      RedisHealth health = backend.health(PROBE_TIMEOUT);
      assertThat(health.up()).isFalse();
      assertThat(health.problem()).isEqualTo(RedisProblem.SCRIPTING_DISABLED);
    }
  }

  @Test
  void limiterWithoutRightToRunScripts_saysPermissionOnceAndHealthIsDown() {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      redis.cli("ACL", "SETUSER", "app", "on", ">app-secret", "~*", "+@all", "-@scripting");
      String uri = "redis://app:app-secret@" + redis.host() + ":" + redis.port();
      try (RedisBackend backend = RedisBackend.standalone(uri)) {
        RedisRateLimiter limiter = failClosedLimiter(backend);

        decideFiveTimesRefused(limiter);

        assertThat(backend.latestProblem()).isEqualTo(RedisProblem.PERMISSION);
        List<LogRecord> errors = errorsAbout(RedisProblem.PERMISSION);
        assertThat(errors).hasSize(1);
        assertThat(formatted(errors.get(0))).contains("app:***@").doesNotContain("app-secret");
        assertThat(backend.health(PROBE_TIMEOUT).problem()).isEqualTo(RedisProblem.PERMISSION);
        assertThat(backend.toString()).doesNotContain("app-secret");
      }
    }
  }

  @Test
  void wrongPassword_failsAtBuildNamingTheCauseWithThePasswordMasked() {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      redis.cli("ACL", "SETUSER", "app", "on", ">right-secret", "~*", "+@all");
      String uri = "redis://app:wrong-secret@" + redis.host() + ":" + redis.port();

      assertThatThrownBy(() -> RedisBackend.standalone(uri).close())
          .isInstanceOf(RedisConnectionException.class)
          .hasMessageContaining(RedisProblem.AUTHENTICATION.explanation())
          .hasMessageContaining("WRONGPASS")
          .hasMessageContaining("app:***@")
          .hasMessageNotContaining("wrong-secret");
    }
  }

  @Test
  void passwordRequiredAfterConnecting_healthIsDown() {
    try (RedisServerProcess redis = RedisServerProcess.start();
        RedisBackend backend = RedisBackend.standalone(redis.uri())) {
      assertThat(backend.health(PROBE_TIMEOUT).up()).isTrue();
      // The server starts to require a password; the connection, made without one, is dropped
      // and cannot shake hands again.
      redis.cli("CONFIG", "SET", "requirepass", "s3cret");
      redis.cli("-a", "s3cret", "--no-auth-warning", "CLIENT", "KILL", "TYPE", "normal");

      RedisHealth health = backend.health(Duration.ofMillis(500));

      assertThat(health.up()).isFalse();
      assertThat(health.detail()).isNotBlank();
    }
  }

  @Test
  void health_serverGone_isDownWithoutAProblem() {
    RedisServerProcess redis = RedisServerProcess.start();
    try (RedisBackend backend = RedisBackend.standalone(redis.uri())) {
      redis.close();

      RedisHealth health = backend.health(Duration.ofMillis(500));

      assertThat(health.up()).isFalse();
      assertThat(health.problem()).isNull();
      assertThat(health.detail()).isNotBlank();
    }
  }
}
