package io.slidingwindow.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AdminRefusalsTest {

  private final List<LogRecord> logged = new CopyOnWriteArrayList<>();
  private final Logger audit = Logger.getLogger(OverrideRoutes.AUDIT_LOGGER);
  private Level level;
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
  void capture() {
    level = audit.getLevel();
    audit.setLevel(Level.ALL);
    audit.addHandler(capture);
  }

  @AfterEach
  void release() {
    audit.removeHandler(capture);
    audit.setLevel(level);
  }

  private List<String> lines(Level level) {
    SimpleFormatter formatter = new SimpleFormatter();
    return logged.stream()
        .filter(r -> r.getLevel().equals(level))
        .map(formatter::formatMessage)
        .toList();
  }

  @Test
  void refused_manyHosts_atMostTheRememberedOnesAtInfo_andOneLineSayingSo() {
    List<String> counted = new ArrayList<>();
    AdminRefusals refusals = new AdminRefusals(counted::add);
    int hosts = AdminRefusals.MAX_REMEMBERED + 50;

    for (int round = 0; round < 3; round++) {
      for (int h = 0; h < hosts; h++) {
        refusals.refused("host_not_allowed", "h" + h + ".test", "127.0.0.1", 403, "no");
      }
    }

    assertThat(counted).hasSize(3 * hosts).containsOnly("host_not_allowed");
    List<String> info = lines(Level.INFO);
    assertThat(info).hasSize(AdminRefusals.MAX_REMEMBERED + 1);
    assertThat(info.get(AdminRefusals.MAX_REMEMBERED))
        .startsWith("admin refusals: " + AdminRefusals.MAX_REMEMBERED + " reasons and Hosts")
        .contains("request_errors_total{transport=\"admin\"}");
    assertThat(info.get(0))
        .isEqualTo(
            "admin refused: reason=host_not_allowed status=403 host=h0.test client=127.0.0.1: no"
                + " (later refusals of this reason and Host are written at DEBUG)");
    assertThat(lines(Level.FINE)).hasSize(3 * hosts - AdminRefusals.MAX_REMEMBERED);
  }

  @Test
  void refused_sameHostOtherReason_orOtherCase_firstOfTheReasonAtInfo() {
    AdminRefusals refusals = new AdminRefusals(reason -> {});

    refusals.refused("host_not_allowed", "Rebound.test:6070", "127.0.0.1", 403, "no");
    refusals.refused("host_not_allowed", "rebound.TEST:6070 ", "127.0.0.1", 403, "no");
    refusals.refused("browser_origin", "rebound.test:6070", "127.0.0.1", 403, "no");

    assertThat(lines(Level.INFO)).hasSize(2);
    assertThat(lines(Level.FINE)).hasSize(1);
  }

  @Test
  void shown_longOrUnprintableOrMissingHost_boundedAndPrintable() {
    assertThat(AdminRefusals.shown("x".repeat(5000))).hasSize(AdminRefusals.MAX_HOST_CHARS);
    assertThat(AdminRefusals.shown(" A\u0007b\u00e9 ")).isEqualTo("a?b?");
    assertThat(AdminRefusals.shown(null)).isEqualTo("(none)");
  }
}
