package io.slidingwindow.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.Test;

class LogCaptureTest {

  private static final String NAME = "io.slidingwindow.testkit.LogCaptureTest.subject";

  /** Held strongly so that the level set below outlives a collection. */
  private final Logger logger = Logger.getLogger(NAME);

  @Test
  void of_debugRecordsOfTheLoggerAndItsChildren_capturedAndLevelRestoredOnClose() {
    logger.setLevel(Level.WARNING);
    try (LogCapture log = LogCapture.of(NAME)) {
      System.getLogger(NAME).log(System.Logger.Level.DEBUG, "at debug");
      System.getLogger(NAME + ".child").log(System.Logger.Level.INFO, "from a child");

      assertThat(log.records())
          .extracting(LogRecord::getLoggerName)
          .containsExactly(NAME, NAME + ".child");
      assertThat(log.messages(Level.FINE)).containsExactly("at debug");
    } finally {
      assertThat(logger.getLevel()).isEqualTo(Level.WARNING);
      logger.setLevel(null);
    }
    assertThat(logger.getHandlers()).isEmpty();
  }

  @Test
  void atConfiguredLevel_recordsBelowIt_notCaptured_levelUntouched() {
    logger.setLevel(Level.INFO);
    try (LogCapture log = LogCapture.atConfiguredLevel(NAME)) {
      System.getLogger(NAME).log(System.Logger.Level.DEBUG, "at debug");
      System.getLogger(NAME).log(System.Logger.Level.WARNING, "at warning");

      assertThat(logger.getLevel()).isEqualTo(Level.INFO);
      assertThat(log.records()).extracting(LogRecord::getMessage).containsExactly("at warning");
    } finally {
      logger.setLevel(null);
    }
  }

  @Test
  void messages_systemLoggerParameters_filledIn() {
    try (LogCapture log = LogCapture.of(NAME)) {
      System.getLogger(NAME).log(System.Logger.Level.INFO, "refused {0} at {1}", "GET", "a.test");

      assertThat(log.messages(Level.INFO)).containsExactly("refused GET at a.test");
      assertThat(log.messages(Level.WARNING)).isEmpty();
    }
  }

  @Test
  void records_publishedFromAnotherThread_seen_andClearForgetsThem() {
    try (LogCapture log = LogCapture.of(NAME)) {
      CompletableFuture.runAsync(
              () -> System.getLogger(NAME).log(System.Logger.Level.INFO, "elsewhere"))
          .join();

      assertThat(log.messages(Level.INFO)).containsExactly("elsewhere");
      log.clear();
      assertThat(log.records()).isEmpty();
    }
  }
}
