package io.slidingwindow.testkit;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Formatter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;

/**
 * The records a {@code java.util.logging} logger publishes while a test runs, which is where the
 * JDK's default {@code System.Logger} writes. Use it with try-with-resources, or open it before
 * each test and close it after:
 *
 * <pre>{@code
 * try (LogCapture log = LogCapture.of("io.slidingwindow.server.admin.audit")) {
 *   ...
 *   assertThat(log.messages(Level.INFO)).singleElement().asString().contains("refused");
 * }
 * }</pre>
 *
 * <p>It sees the records of the named logger and of its descendants that pass their own levels and
 * reach it through their parent handlers. {@link #of} lowers the named logger's level to {@link
 * Level#ALL} (DEBUG and TRACE records included); {@link #atConfiguredLevel} leaves it as it is.
 * {@link #close} restores the level and removes the handler.
 *
 * <p>Thread-safe: records may be published from any thread while a test reads them; each read
 * returns a snapshot. Opening and closing are not meant to race each other.
 */
public final class LogCapture implements AutoCloseable {

  /**
   * Formatter's {@code formatMessage} fills {@code {0}} parameters as {@code System.Logger} did.
   */
  private static final Formatter FORMATTER = new SimpleFormatter();

  /** Held strongly: the logging framework keeps loggers only weakly, with their levels. */
  private final Logger logger;

  private final Level previousLevel;
  private final boolean changedLevel;
  private final List<LogRecord> records = new CopyOnWriteArrayList<>();
  private final Handler handler =
      new Handler() {
        @Override
        public void publish(LogRecord record) {
          records.add(record);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
      };

  private LogCapture(String loggerName, boolean everything) {
    this.logger = Logger.getLogger(Objects.requireNonNull(loggerName, "loggerName"));
    this.previousLevel = logger.getLevel();
    this.changedLevel = everything;
    handler.setLevel(Level.ALL);
    if (everything) {
      logger.setLevel(Level.ALL);
    }
    logger.addHandler(handler);
  }

  /**
   * Starts capturing the records of {@code loggerName} and of its descendants, with that logger set
   * to {@link Level#ALL} until {@link #close}.
   */
  public static LogCapture of(String loggerName) {
    return new LogCapture(loggerName, true);
  }

  /**
   * Starts capturing the records of {@code loggerName} and of its descendants at the levels they
   * are configured with, as an application would log them.
   */
  public static LogCapture atConfiguredLevel(String loggerName) {
    return new LogCapture(loggerName, false);
  }

  /** The records captured so far, oldest first. */
  public List<LogRecord> records() {
    return List.copyOf(records);
  }

  /**
   * The formatted messages of the records captured so far at exactly {@code level}, oldest first.
   */
  public List<String> messages(Level level) {
    Objects.requireNonNull(level, "level");
    return records.stream()
        .filter(r -> level.equals(r.getLevel()))
        .map(LogCapture::formatted)
        .toList();
  }

  /** The message of {@code record} with its parameters filled in, without time or level. */
  public static String formatted(LogRecord record) {
    return FORMATTER.formatMessage(record);
  }

  /** Forgets the records captured so far; capturing goes on. */
  public void clear() {
    records.clear();
  }

  /** Stops capturing and restores the logger's level if {@link #of} changed it. Idempotent. */
  @Override
  public void close() {
    logger.removeHandler(handler);
    if (changedLevel) {
      logger.setLevel(previousLevel);
    }
  }
}
