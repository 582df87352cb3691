package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RedisProblemTest {

  @Test
  void of_lastingErrorReplies_nameTheirProblem() {
    assertThat(RedisProblem.of("READONLY You can't write against a read only replica."))
        .isEqualTo(RedisProblem.READ_ONLY_REPLICA);
    assertThat(RedisProblem.of("NOAUTH Authentication required."))
        .isEqualTo(RedisProblem.AUTHENTICATION);
    assertThat(RedisProblem.of("WRONGPASS invalid username-password pair or user is disabled."))
        .isEqualTo(RedisProblem.AUTHENTICATION);
    assertThat(RedisProblem.of("NOPERM this user has no permissions to run the 'evalsha' command"))
        .isEqualTo(RedisProblem.PERMISSION);
    assertThat(RedisProblem.of("ERR unknown command 'EVALSHA', with args beginning with: 'abc'"))
        .isEqualTo(RedisProblem.SCRIPTING_DISABLED);
    assertThat(RedisProblem.of("ERR Lua scripting is disabled"))
        .isEqualTo(RedisProblem.SCRIPTING_DISABLED);
  }

  @Test
  void of_passingOrUnrelatedReplies_nameNone() {
    assertThat(RedisProblem.of(null)).isNull();
    assertThat(RedisProblem.of("TRYAGAIN Multiple keys request during rehashing of slot")).isNull();
    assertThat(RedisProblem.of("NOSCRIPT No matching script. Please use EVAL.")).isNull();
    assertThat(RedisProblem.of("BUSY Redis is busy running a script.")).isNull();
    assertThat(RedisProblem.of("ERR unknown command 'FOO'")).isNull();
    assertThat(RedisProblem.of("WRONGTYPE Operation against a key holding the wrong kind of value"))
        .isNull();
  }

  @Test
  void explanation_forAClientThatFindsTheMasterAgain_differsForReadOnlyReplicaOnly() {
    for (RedisProblem problem : RedisProblem.values()) {
      assertThat(problem.explanation(false)).as("%s", problem).isEqualTo(problem.explanation());
      if (problem != RedisProblem.READ_ONLY_REPLICA) {
        assertThat(problem.explanation(true)).as("%s", problem).isEqualTo(problem.explanation());
      }
    }
    assertThat(RedisProblem.READ_ONLY_REPLICA.explanation(true))
        .contains("demoted")
        .contains("Sentinel")
        .doesNotContain("point the limiter at the master");
  }
}
