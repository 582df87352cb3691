package io.slidingwindow.server;

import io.slidingwindow.server.settings.Settings;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.logging.ConsoleHandler;
import java.util.logging.Formatter;
import java.util.logging.Level;
import java.util.logging.LogManager;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The command line's log lines, on standard error: one line per event, whatever the message or
 * exception holds, as text ({@code 2026-01-02T03:04:05.678Z WARN logger: message | exception}) or
 * as one JSON object ({@code time}, {@code level}, {@code logger}, {@code thread}, {@code message},
 * and {@code error} with the stack trace) for log shippers. Every library that logs through {@code
 * java.util.logging} or {@code System.Logger} (gRPC, Netty, Lettuce without SLF4J) writes through
 * it.
 */
final class LogLines extends Formatter {

  /** The lines {@link #install} set up, and from which level; null before. */
  private static volatile LogLines installed;

  private static volatile Level threshold = Level.INFO;

  private final boolean json;

  private LogLines(boolean json) {
    this.json = json;
  }

  /** Sends every log record of the process through these lines, from {@code logs.level()} up. */
  static void install(Settings.Logs logs) {
    LogManager.getLogManager().reset();
    Level level =
        switch (logs.level()) {
          case "error" -> Level.SEVERE;
          case "warn" -> Level.WARNING;
          case "debug" -> Level.FINE;
          case "trace" -> Level.FINEST;
          default -> Level.INFO;
        };
    LogLines lines = new LogLines(logs.format() == Settings.LogFormat.JSON);
    ConsoleHandler handler = new ConsoleHandler();
    handler.setLevel(Level.ALL);
    handler.setFormatter(lines);
    Logger root = Logger.getLogger("");
    root.setLevel(level);
    root.addHandler(handler);
    // A client that resets its own streams (a timeout in Envoy, a benchmark that stops) is logged
    // there as a WARNING per stream: the client's doing, not an event of this service.
    QUIET.setLevel(level.intValue() > Level.SEVERE.intValue() ? level : Level.SEVERE);
    threshold = level;
    installed = lines;
  }

  /**
   * Writes one line as {@code logger} would, straight to standard error: for lines written while
   * the process ends, which a logger could lose, since {@code java.util.logging}'s own shutdown
   * hook takes every logger's handlers away, racing the hook that stops the service. Nothing before
   * {@link #install}, or below its level.
   */
  static void writeDirectly(String logger, Level level, String message) {
    LogLines lines = installed;
    if (lines == null || level.intValue() < threshold.intValue()) {
      return;
    }
    LogRecord record = new LogRecord(level, message);
    record.setLoggerName(logger);
    String line = lines.format(record);
    synchronized (System.err) {
      System.err.print(line);
      System.err.flush();
    }
  }

  /** Kept referenced, so that its level holds (the log manager keeps loggers weakly). */
  private static final Logger QUIET =
      Logger.getLogger("io.grpc.netty.shaded.io.grpc.netty.NettyServerHandler");

  @Override
  public String format(LogRecord record) {
    String message = formatMessage(record);
    Throwable thrown = record.getThrown();
    if (json) {
      Map<String, Object> line = new LinkedHashMap<>();
      line.put("time", Instant.ofEpochMilli(record.getMillis()).toString());
      line.put("level", level(record.getLevel()));
      line.put("logger", record.getLoggerName());
      line.put("thread", Thread.currentThread().getName());
      line.put("message", message);
      if (thrown != null) {
        StringWriter trace = new StringWriter();
        thrown.printStackTrace(new PrintWriter(trace));
        line.put("error", trace.toString());
      }
      return new String(
              io.slidingwindow.server.http.Json.write(line),
              java.nio.charset.StandardCharsets.UTF_8)
          + System.lineSeparator();
    }
    StringBuilder line =
        new StringBuilder()
            .append(Instant.ofEpochMilli(record.getMillis()))
            .append(' ')
            .append(level(record.getLevel()))
            .append(' ')
            .append(record.getLoggerName())
            .append(": ")
            .append(oneLine(message));
    if (thrown != null) {
      line.append(" | ").append(oneLine(String.valueOf(thrown)));
      StackTraceElement[] frames = thrown.getStackTrace();
      for (int i = 0; i < Math.min(frames.length, 3); i++) {
        line.append(i == 0 ? " at " : " < ").append(frames[i]);
      }
      for (Throwable cause = thrown.getCause(); cause != null; cause = cause.getCause()) {
        line.append(" | caused by ").append(oneLine(String.valueOf(cause)));
      }
    }
    return line.append(System.lineSeparator()).toString();
  }

  private static String level(Level level) {
    int value = level.intValue();
    if (value >= Level.SEVERE.intValue()) {
      return "ERROR";
    }
    if (value >= Level.WARNING.intValue()) {
      return "WARN";
    }
    if (value >= Level.INFO.intValue()) {
      return "INFO";
    }
    return value >= Level.FINE.intValue() ? "DEBUG" : "TRACE";
  }

  private static String oneLine(String text) {
    return text == null
        ? "null"
        : text.replace("\r\n", " / ").replace('\n', ' ').replace('\r', ' ');
  }
}
