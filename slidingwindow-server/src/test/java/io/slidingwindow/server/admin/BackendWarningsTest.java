package io.slidingwindow.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.server.decide.ServiceHealth;
import io.slidingwindow.testkit.LogCapture;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

class BackendWarningsTest {

  @Test
  void run_failuresSinceTheLastRun_oneWarnWithTheirCount_elseNothing() {
    ServiceHealth health = new ServiceHealth("redis", "standalone redis://r:6379");
    health.backendFailed();
    BackendWarnings warnings = new BackendWarnings(health);
    List<LogRecord> logged;
    try (LogCapture capture = LogCapture.atConfiguredLevel(BackendWarnings.class.getName())) {
      warnings.run(); // the failure before it started was not its to report
      for (int i = 0; i < 1234; i++) {
        health.backendFailed();
      }
      warnings.run();
      warnings.run();
      logged = capture.records();
    }

    assertThat(logged).hasSize(1);
    LogRecord record = logged.get(0);
    assertThat(record.getLevel()).isEqualTo(Level.WARNING);
    assertThat(new java.util.logging.SimpleFormatter().formatMessage(record))
        .startsWith("1234 decisions in the last 10 s were answered by the failure policy")
        .contains("standalone redis://r:6379");
  }
}
