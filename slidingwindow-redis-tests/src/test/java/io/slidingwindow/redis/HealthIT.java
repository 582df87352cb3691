package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisConnectionException;
import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import io.slidingwindow.testkit.LogCapture;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.time.Duration;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A limiter set up against the wrong server says so, for each client: once, in a log line naming
 * the cause, and in its backend's health, while its failure policy answers.
 */
class HealthIT {

  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(2);

  private LogCapture logged;

  @BeforeEach
  void captureLog() {
    logged = LogCapture.atConfiguredLevel("io.slidingwindow.redis");
  }

  @AfterEach
  void releaseLog() {
    logged.close();
  }

  private static RedisRateLimiter refusingLimiter(RedisBackend backend) {
    return RedisRateLimiter.builder(backend)
        .limit(Limit.of(5, Duration.ofSeconds(10)))
        .failurePolicy(FailurePolicy.REFUSE)
        .commandTimeout(Duration.ofSeconds(1))
        .batching(false)
        .build();
  }

  /** Decides five times; every answer must be the REFUSE policy's. */
  private static void decideFiveTimesRefused(RedisRateLimiter limiter) {
    for (int i = 0; i < 5; i++) {
      Decision d = limiter.decide("client-" + i, 1);
      assertThat(d.allowed()).as("REFUSE answer %d", i).isFalse();
    }
  }

  private List<LogRecord> errorsAbout(RedisProblem problem) {
    return logged.records().stream()
        .filter(r -> Level.SEVERE.equals(r.getLevel()))
        .filter(r -> formatted(r).contains(problem.explanation()))
        .toList();
  }

  private static String formatted(LogRecord record) {
    return LogCapture.formatted(record);
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void health_healthyServer_isUpAndLogsNothing(Client client) {
    try (RedisServerProcess redis = RedisServerProcess.start();
        RedisBackend backend = client.standalone(redis.uri(), PROBE_TIMEOUT)) {
      assertThat(backend.health(PROBE_TIMEOUT)).isEqualTo(new RedisHealth(true, null, "OK"));
      assertThat(refusingLimiter(backend).decide("a", 1).allowed()).isTrue();
      assertThat(backend.latestProblem()).isNull();
      assertThat(logged.records()).isEmpty();
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void limiterOnReplica_saysReadOnlyOnceAndHealthIsDown(Client client) {
    try (RedisServerProcess master = RedisServerProcess.start();
        RedisServerProcess replica = RedisServerProcess.start()) {
      replica.cli("REPLICAOF", master.host(), Integer.toString(master.port()));
      try (RedisBackend backend = client.standalone(replica.uri(), PROBE_TIMEOUT)) {
        RedisRateLimiter limiter = refusingLimiter(backend);

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

  @ParameterizedTest
  @EnumSource(Client.class)
  void limiterWithoutScripting_saysScriptingDisabledOnceAndHealthIsDown(Client client) {
    try (RedisServerProcess redis =
            RedisServerProcess.startWithConfig(
                "rename-command EVAL \"\"", "rename-command EVALSHA \"\"");
        RedisBackend backend = client.standalone(redis.uri(), PROBE_TIMEOUT)) {
      RedisRateLimiter limiter = refusingLimiter(backend);

      decideFiveTimesRefused(limiter);

      assertThat(backend.latestProblem()).isEqualTo(RedisProblem.SCRIPTING_DISABLED);
      assertThat(errorsAbout(RedisProblem.SCRIPTING_DISABLED)).hasSize(1);
      RedisHealth health = backend.health(PROBE_TIMEOUT);
      assertThat(health.up()).isFalse();
      assertThat(health.problem()).isEqualTo(RedisProblem.SCRIPTING_DISABLED);
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void limiterWithoutRightToRunScripts_saysPermissionOnceAndHealthIsDown(Client client) {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      redis.cli("ACL", "SETUSER", "app", "on", ">app-secret", "~*", "+@all", "-@scripting");
      String uri = "redis://app:app-secret@" + redis.host() + ":" + redis.port();
      try (RedisBackend backend = client.standalone(uri, PROBE_TIMEOUT)) {
        RedisRateLimiter limiter = refusingLimiter(backend);

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

  /** Lettuce connects when the backend is built, so a wrong password fails there. */
  @Test
  void wrongPassword_lettuceFailsAtBuildNamingTheCauseWithThePasswordMasked() {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      redis.cli("ACL", "SETUSER", "app", "on", ">right-secret", "~*", "+@all");
      String uri = "redis://app:wrong-secret@" + redis.host() + ":" + redis.port();

      assertThatThrownBy(() -> LettuceBackends.standalone(uri).close())
          .isInstanceOf(RedisConnectionException.class)
          .hasMessageContaining(RedisProblem.AUTHENTICATION.explanation())
          .hasMessageContaining("WRONGPASS")
          .hasMessageContaining("app:***@")
          .hasMessageNotContaining("wrong-secret");
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void passwordRequiredAfterConnecting_healthIsDown(Client client) {
    try (RedisServerProcess redis = RedisServerProcess.start();
        RedisBackend backend = client.standalone(redis.uri(), PROBE_TIMEOUT)) {
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

  @ParameterizedTest
  @EnumSource(Client.class)
  void health_serverGone_isDownWithoutAProblem(Client client) {
    RedisServerProcess redis = RedisServerProcess.start();
    try (RedisBackend backend = client.standalone(redis.uri(), PROBE_TIMEOUT)) {
      redis.close();

      RedisHealth health = backend.health(Duration.ofMillis(500));

      assertThat(health.up()).isFalse();
      assertThat(health.problem()).isNull();
      assertThat(health.detail()).isNotBlank();
    }
  }

  /**
   * A Jedis pool connects on first use, so a wrong password is met by the first call: it is told
   * once, as an AUTHENTICATION problem with the password masked, and the health probe says so.
   */
  @Test
  void wrongPassword_jedisSaysAuthenticationOnceWithThePasswordMasked() {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      redis.cli("ACL", "SETUSER", "app", "on", ">right-secret", "~*", "+@all");
      String uri = "redis://app:wrong-secret@" + redis.host() + ":" + redis.port();
      try (RedisBackend backend = Client.JEDIS.standalone(uri, PROBE_TIMEOUT)) {
        decideFiveTimesRefused(refusingLimiter(backend));

        assertThat(backend.latestProblem()).isEqualTo(RedisProblem.AUTHENTICATION);
        List<LogRecord> errors = errorsAbout(RedisProblem.AUTHENTICATION);
        assertThat(errors).hasSize(1);
        assertThat(formatted(errors.get(0))).contains("app:***@").doesNotContain("wrong-secret");
        RedisHealth health = backend.health(PROBE_TIMEOUT);
        assertThat(health.problem()).isEqualTo(RedisProblem.AUTHENTICATION);
        assertThat(backend.toString()).doesNotContain("wrong-secret");
      }
    }
  }
}
