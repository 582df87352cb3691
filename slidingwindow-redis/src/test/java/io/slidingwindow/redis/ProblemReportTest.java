package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.LogCapture;
import java.util.logging.Level;
import org.junit.jupiter.api.Test;

/**
 * What the backend logs for a READONLY reply: the advice to point the limiter at the master where
 * the configuration is at fault, a warning that the master was demoted where the client finds it
 * again (Sentinel).
 */
class ProblemReportTest {

  private static final String READONLY = "READONLY You can't write against a read only replica.";

  @Test
  void readOnly_clientThatDoesNotFindTheMaster_logsTheAdviceOnceAtSevere() {
    try (LogCapture logged = LogCapture.atConfiguredLevel("io.slidingwindow.redis")) {
      ProblemReport report = new ProblemReport("standalone redis://127.0.0.1:1");
      report.onErrorReply(READONLY);
      report.onErrorReply(READONLY);

      assertThat(logged.messages(Level.SEVERE))
          .singleElement()
          .asString()
          .contains("standalone redis://127.0.0.1:1")
          .contains(RedisProblem.READ_ONLY_REPLICA.explanation())
          .contains(READONLY);
      assertThat(logged.messages(Level.WARNING)).isEmpty();
      assertThat(report.latest()).isEqualTo(RedisProblem.READ_ONLY_REPLICA);
    }
  }

  @Test
  void readOnly_clientThatFindsTheMasterAgain_logsOnceAtWarningThatTheMasterWasDemoted() {
    try (LogCapture logged = LogCapture.atConfiguredLevel("io.slidingwindow.redis")) {
      ProblemReport report = new ProblemReport("sentinel mymaster", true);
      report.onErrorReply(READONLY);
      report.onErrorReply(READONLY);

      assertThat(logged.messages(Level.WARNING))
          .singleElement()
          .asString()
          .contains("sentinel mymaster")
          .contains("the master was demoted")
          .contains("asks Sentinel for the master again")
          .contains(READONLY)
          .doesNotContain(RedisProblem.READ_ONLY_REPLICA.explanation());
      assertThat(logged.messages(Level.SEVERE)).isEmpty();
      assertThat(report.latest()).isEqualTo(RedisProblem.READ_ONLY_REPLICA);
    }
  }

  @Test
  void otherProblems_clientThatFindsTheMasterAgain_stillLogAtSevere() {
    try (LogCapture logged = LogCapture.atConfiguredLevel("io.slidingwindow.redis")) {
      new ProblemReport("sentinel mymaster", true).onErrorReply("NOPERM no rights");

      assertThat(logged.messages(Level.SEVERE))
          .singleElement()
          .asString()
          .contains(RedisProblem.PERMISSION.explanation());
      assertThat(logged.messages(Level.WARNING)).isEmpty();
    }
  }
}
