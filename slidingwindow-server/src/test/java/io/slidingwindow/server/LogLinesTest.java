package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.server.settings.Settings;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class LogLinesTest {

  @AfterEach
  void resetLogging() throws Exception {
    LogManager.getLogManager().readConfiguration();
  }

  private static String format(Settings.LogFormat format) {
    LogLines.install(new Settings.Logs(format, "info"));
    LogRecord record = new LogRecord(Level.WARNING, "Redis {0} failed\nsecond line");
    record.setParameters(new Object[] {"standalone"});
    record.setLoggerName("io.slidingwindow.server.Test");
    record.setThrown(
        new IllegalStateException("outer\nmessage", new java.io.IOException("inner cause")));
    return Logger.getLogger("").getHandlers()[0].getFormatter().format(record);
  }

  @Test
  void text_eventWithMultilineMessageAndException_isOneLine() {
    String line = format(Settings.LogFormat.TEXT);

    assertThat(line.lines()).hasSize(1);
    assertThat(line)
        .contains(" WARN io.slidingwindow.server.Test: Redis standalone failed second line")
        .contains("| java.lang.IllegalStateException: outer message at ")
        .contains("| caused by java.io.IOException: inner cause");
  }

  @Test
  void json_eventWithException_isOneJsonObjectPerLine() throws Exception {
    String line = format(Settings.LogFormat.JSON);

    assertThat(line.lines()).hasSize(1);
    JsonNode event = new ObjectMapper().readTree(line);
    assertThat(event.get("level").asText()).isEqualTo("WARN");
    assertThat(event.get("logger").asText()).isEqualTo("io.slidingwindow.server.Test");
    assertThat(event.get("message").asText()).isEqualTo("Redis standalone failed\nsecond line");
    assertThat(event.get("error").asText())
        .startsWith("java.lang.IllegalStateException: outer")
        .contains("Caused by: java.io.IOException: inner cause");
    assertThat(event.get("time").asText()).matches("\\d{4}-\\d\\d-\\d\\dT.*Z");
  }

  @Test
  void install_level_dropsWhatIsLessSevere() {
    LogLines.install(new Settings.Logs(Settings.LogFormat.TEXT, "warn"));

    assertThat(Logger.getLogger("any").isLoggable(Level.INFO)).isFalse();
    assertThat(Logger.getLogger("any").isLoggable(Level.WARNING)).isTrue();
  }
}
