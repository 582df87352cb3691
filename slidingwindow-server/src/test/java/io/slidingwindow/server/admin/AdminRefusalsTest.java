package io.slidingwindow.server.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Ticker;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.LogCapture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class AdminRefusalsTest {

  private LogCapture logged;

  @BeforeEach
  void capture() {
    logged = LogCapture.of(OverrideRoutes.AUDIT_LOGGER);
  }

  @AfterEach
  void release() {
    logged.close();
  }

  private List<String> lines(Level level) {
    return logged.messages(level);
  }

  /**
   * A clock that moves on a minute at each reading, so that the bound on INFO lines a minute holds
   * nothing back: for the tests of what is remembered.
   */
  private static Ticker minutePerReading() {
    FakeTicker ticker = new FakeTicker();
    return () -> ticker.advance(Duration.ofMinutes(1)).read();
  }

  /**
   * A client that sends made-up Hosts fills what is remembered; the next new refusal forgets it all
   * and is written at INFO, and so is the next one of a Host seen before, rather than staying at
   * DEBUG for good.
   */
  @Test
  void refused_pastTheMostRemembered_forgetsThem_andNewRefusalsAreAtInfoAgain() {
    List<String> counted = new ArrayList<>();
    AdminRefusals refusals = new AdminRefusals(counted::add, minutePerReading());
    for (int h = 0; h < AdminRefusals.MAX_REMEMBERED; h++) {
      refusals.refused("host_not_allowed", "made-up-" + h + ".test", "192.0.2.7", 403, "no");
    }
    refusals.refused("host_not_allowed", "made-up-0.test", "192.0.2.7", 403, "no");
    assertThat(lines(Level.INFO)).hasSize(AdminRefusals.MAX_REMEMBERED);
    assertThat(lines(Level.FINE)).hasSize(1);
    assertThat(refusals.remembered()).isEqualTo(AdminRefusals.MAX_REMEMBERED);
    logged.clear();

    refusals.refused("host_not_allowed", "rebound.test:6070", "192.0.2.9", 403, "no");
    refusals.refused("unauthorized", "made-up-0.test", "192.0.2.7", 401, "no");
    refusals.refused("host_not_allowed", "made-up-0.test", "192.0.2.7", 403, "no");
    refusals.refused("host_not_allowed", "rebound.test:6070", "192.0.2.9", 403, "no");

    List<String> info = lines(Level.INFO);
    assertThat(info).hasSize(4);
    assertThat(info.get(0))
        .startsWith(
            "admin refusals: " + AdminRefusals.MAX_REMEMBERED + " reasons, Hosts and clients")
        .contains("forgotten", "request_errors_total{transport=\"admin\"}");
    assertThat(info.get(1))
        .isEqualTo(
            "admin refused: reason=host_not_allowed status=403 host=rebound.test:6070"
                + " client=192.0.2.9: no"
                + " (later refusals of this reason, Host and client are written at DEBUG)");
    assertThat(info.get(2)).contains("reason=unauthorized", "host=made-up-0.test");
    assertThat(info.get(3)).contains("reason=host_not_allowed", "host=made-up-0.test");
    assertThat(lines(Level.FINE))
        .singleElement()
        .asString()
        .contains("host=rebound.test:6070", "client=192.0.2.9");
    assertThat(counted)
        .hasSize(AdminRefusals.MAX_REMEMBERED + 5)
        .containsOnly("host_not_allowed", "unauthorized");
  }

  @Test
  void refused_manyHosts_rememberedStayBounded_andEachNewOneIsAtInfo() {
    AdminRefusals refusals = new AdminRefusals(reason -> {}, minutePerReading());
    int hosts = 3 * AdminRefusals.MAX_REMEMBERED + 10;

    for (int h = 0; h < hosts; h++) {
      refusals.refused("host_not_allowed", "h" + h + ".test", "127.0.0.1", 403, "no");
      assertThat(refusals.remembered()).isBetween(1, AdminRefusals.MAX_REMEMBERED);
    }

    assertThat(lines(Level.INFO))
        .filteredOn(line -> line.startsWith("admin refused: "))
        .hasSize(hosts);
    assertThat(lines(Level.INFO))
        .filteredOn(line -> line.startsWith("admin refusals: "))
        .hasSize(3);
    assertThat(lines(Level.FINE)).isEmpty();
  }

  /** A second caller guessing the token at the same Host is seen at INFO too. */
  @Test
  void refused_unauthorizedFromASecondClientAtTheSameHost_atInfoForEach() {
    AdminRefusals refusals = new AdminRefusals(reason -> {});

    refusals.refused("unauthorized", "admin.test:6070", "192.0.2.1", 401, "no");
    refusals.refused("unauthorized", "admin.test:6070", "192.0.2.1", 401, "no");
    refusals.refused("unauthorized", "admin.test:6070", "198.51.100.2", 401, "no");
    refusals.refused("unauthorized", "admin.test:6070", "198.51.100.2", 401, "no");

    assertThat(lines(Level.INFO))
        .hasSize(2)
        .anySatisfy(line -> assertThat(line).contains("client=192.0.2.1"))
        .anySatisfy(line -> assertThat(line).contains("client=198.51.100.2"));
    assertThat(lines(Level.FINE)).hasSize(2);
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

  /**
   * A flood of refusals with made-up Hosts within one minute: INFO lines stop at the bound for the
   * reason, the rest go to DEBUG, and the first refusal after the minute says how many did.
   */
  @Test
  void refused_floodOfMadeUpHostsInOneMinute_infoBounded_thenOneLineCountsTheRest() {
    FakeTicker ticker = new FakeTicker();
    List<String> counted = new ArrayList<>();
    AdminRefusals refusals = new AdminRefusals(counted::add, ticker);
    int flood = 1000;

    for (int h = 0; h < flood; h++) {
      refusals.refused("host_not_allowed", "flood-" + h + ".test", "192.0.2.7", 403, "no");
      ticker.advance(Duration.ofMillis(50));
    }

    assertThat(lines(Level.INFO))
        .filteredOn(line -> line.startsWith("admin refused: "))
        .hasSize(AdminRefusals.MAX_INFO_PER_MINUTE);
    assertThat(lines(Level.INFO))
        .as("only what was written at INFO is remembered, so nothing is forgotten")
        .filteredOn(line -> line.startsWith("admin refusals: "))
        .isEmpty();
    assertThat(refusals.remembered()).isEqualTo(AdminRefusals.MAX_INFO_PER_MINUTE);
    assertThat(lines(Level.FINE))
        .filteredOn(line -> line.startsWith("admin refused: "))
        .hasSize(flood - AdminRefusals.MAX_INFO_PER_MINUTE)
        .allSatisfy(
            line ->
                assertThat(line).endsWith("(past the INFO lines of this reason for this minute)"));
    assertThat(counted).hasSize(flood);
    logged.clear();

    ticker.advance(Duration.ofMinutes(1));
    refusals.refused("host_not_allowed", "after.test", "192.0.2.7", 403, "no");

    assertThat(lines(Level.INFO))
        .containsExactly(
            "admin refusals: "
                + (flood - AdminRefusals.MAX_INFO_PER_MINUTE)
                + " more refusals of reason host_not_allowed in the last minute were written at"
                + " DEBUG rather than INFO, past the "
                + AdminRefusals.MAX_INFO_PER_MINUTE
                + " a minute (every refusal is counted in"
                + " slidingwindow_server_request_errors_total{transport=\"admin\"})",
            "admin refused: reason=host_not_allowed status=403 host=after.test client=192.0.2.7:"
                + " no (later refusals of this reason, Host and client are written at DEBUG)");
  }

  /** Each reason has a bound of its own: a flood of one does not silence the first of another. */
  @Test
  void refused_floodOfOneReason_anotherReasonStillAtInfo() {
    FakeTicker ticker = new FakeTicker();
    AdminRefusals refusals = new AdminRefusals(reason -> {}, ticker);
    for (int h = 0; h < 3 * AdminRefusals.MAX_INFO_PER_MINUTE; h++) {
      refusals.refused("host_not_allowed", "flood-" + h + ".test", "192.0.2.7", 403, "no");
    }

    refusals.refused("unauthorized", "admin.test", "198.51.100.2", 401, "no");

    assertThat(lines(Level.INFO))
        .hasSize(AdminRefusals.MAX_INFO_PER_MINUTE + 1)
        .last()
        .asString()
        .contains("reason=unauthorized");
  }

  /**
   * A refusal written at DEBUG for want of INFO lines is not remembered: twenty made-up refusals
   * cannot keep a real one out of INFO past their minute.
   */
  @Test
  void refused_pastTheBound_notRemembered_soTheSameRefusalAfterTheMinuteIsAtInfo() {
    FakeTicker ticker = new FakeTicker();
    AdminRefusals refusals = new AdminRefusals(reason -> {}, ticker);
    for (int h = 0; h < AdminRefusals.MAX_INFO_PER_MINUTE; h++) {
      refusals.refused("unauthorized", "made-up-" + h + ".test", "192.0.2.7", 401, "no");
    }
    refusals.refused("unauthorized", "admin.test", "198.51.100.2", 401, "no");
    assertThat(lines(Level.INFO)).noneMatch(line -> line.contains("client=198.51.100.2"));
    logged.clear();

    ticker.advance(Duration.ofMinutes(1));
    refusals.refused("unauthorized", "admin.test", "198.51.100.2", 401, "no");

    assertThat(lines(Level.INFO))
        .anyMatch(line -> line.startsWith("admin refused") && line.contains("client=198.51.100.2"));
  }

  /** Within its minute a known refusal stays at DEBUG and reports nothing held back. */
  @Test
  void refused_boundReachedThenQuiet_noCountLineUntilTheNextRefusalOfTheReason() {
    FakeTicker ticker = new FakeTicker();
    AdminRefusals refusals = new AdminRefusals(reason -> {}, ticker);
    for (int h = 0; h <= AdminRefusals.MAX_INFO_PER_MINUTE; h++) {
      refusals.refused("host_not_allowed", "h" + h + ".test", "192.0.2.7", 403, "no");
    }
    ticker.advance(Duration.ofSeconds(59));
    refusals.refused("host_not_allowed", "h0.test", "192.0.2.7", 403, "no");
    assertThat(lines(Level.INFO)).hasSize(AdminRefusals.MAX_INFO_PER_MINUTE);
    logged.clear();

    ticker.advance(Duration.ofSeconds(1));
    refusals.refused("host_not_allowed", "h0.test", "192.0.2.7", 403, "no");
    refusals.refused("host_not_allowed", "h1.test", "192.0.2.7", 403, "no");

    assertThat(lines(Level.INFO))
        .singleElement()
        .asString()
        .startsWith("admin refusals: 1 more refusals of reason host_not_allowed");
    assertThat(lines(Level.FINE)).hasSize(2);
  }

  @Test
  void shown_longOrUnprintableOrMissingHost_boundedAndPrintable() {
    assertThat(AdminRefusals.shown("x".repeat(5000))).hasSize(AdminRefusals.MAX_HOST_CHARS);
    assertThat(AdminRefusals.shown(" A\u0007b\u00e9 ")).isEqualTo("a?b?");
    assertThat(AdminRefusals.shown(null)).isEqualTo("(none)");
  }
}
