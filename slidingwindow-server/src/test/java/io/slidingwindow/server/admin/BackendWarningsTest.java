package io.slidingwindow.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.server.decide.ServiceHealth;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class BackendWarningsTest {

  @Test
  void run_failuresSinceTheLastRun_oneWarnWithTheirCount_elseNothing() {
    ServiceHealth health = new ServiceHealth("redis", "standalone redis://r:6379");
    health.backendFailed();
    BackendWarnings warnings = new BackendWarnings(health);
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Logger logger = Logger.getLogger(BackendWarnings.class.getName());
    Handler capture =
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
    logger.addHandler(capture);
    try {
      warnings.run(); // the failure before it started was not its to report
      for (int i = 0; i < 1234; i++) {
        health.backendFailed();
      }
      warnings.run();
      warnings.run();
    } finally {
      logger.removeHandler(capture);
    }

    assertThat(logged).hasSize(1);
    LogRecord record = logged.get(0);
    assertThat(record.getLevel()).isEqualTo(Level.WARNING);
    assertThat(new java.util.logging.SimpleFormatter().formatMessage(record))
        .startsWith("1234 decisions in the last 10 s were answered by the failure policy")
        .contains("standalone redis://r:6379");
  }
}
