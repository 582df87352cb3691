package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The keys and arguments of calendar quotas (limiter.lua, "Calendar quotas"). */
class LimiterScriptCalendarTest {

  private static final ZoneId PARIS = ZoneId.of("Europe/Paris");

  private static long micros(Instant instant) {
    return instant.getEpochSecond() * 1_000_000 + instant.getNano() / 1000;
  }

  private static Instant paris(int year, int month, int day) {
    return LocalDate.of(year, month, day).atStartOfDay(PARIS).toInstant();
  }

  /** The calendar argument of limit slot {@code slot} in a call's arguments. */
  private static String periods(String[] args, int slot) {
    return args[5 + 3 * slot];
  }

  @Test
  void clientTime_periodsAroundTheTicker_inTheTickersMicroseconds() {
    AtomicLong nanos = new AtomicLong(5_000);
    Ticker ticker = nanos::get;
    Instant anchor = ZonedDateTime.of(2026, 3, 31, 23, 59, 0, 0, PARIS).toInstant();
    ScriptTime time = new ScriptTime(ticker, Clock.fixed(anchor, ZoneOffset.UTC));
    LimiterScript script =
        new LimiterScript(
            List.of(Limit.parse("3/10s"), Limit.parse("5/month@Europe/Paris")), false, time, false);
    String[] args = script.args("peek", "0");
    assertThat(args[6]).isEqualTo("5");
    assertThat(args[7]).as("calendar, a minute's least expiry").isEqualTo("@60000");
    long a = micros(anchor);
    assertThat(periods(args, 1))
        .isEqualTo(
            (2026 * 12 + 2)
                + ","
                + (micros(paris(2026, 2, 1)) - a)
                + ","
                + (micros(paris(2026, 3, 1)) - a)
                + ","
                + 60_000_000
                + ","
                + (micros(paris(2026, 5, 1)) - a));
    nanos.addAndGet(Duration.ofSeconds(60).toNanos() - 1_000);
    assertThat(periods(script.args("peek", "0"), 1)).startsWith((2026 * 12 + 2) + ",");
    nanos.addAndGet(1_000);
    assertThat(periods(script.args("peek", "0"), 1))
        .as("April from its first microsecond")
        .startsWith((2026 * 12 + 3) + "," + (micros(paris(2026, 3, 1)) - a) + ",60000000,");
    assertThat(script.keys("p:{t}:"))
        .containsExactly("p:{t}:3:10000000:10000", "p:{t}:5:month@Europe/Paris");
  }

  @Test
  void serverTime_epochMicroseconds_andPlansNameThePeriodAndZoneOnly() {
    Instant now = Instant.now();
    ScriptTime time = new ScriptTime(null, Clock.fixed(now, ZoneOffset.UTC));
    LimiterScript script = new LimiterScript(List.of(Limit.parse("7/day")), true, time, true);
    String[] args = script.args(List.of());
    assertThat(args[4]).isEqualTo("@0");
    long day = LocalDate.ofInstant(now, ZoneOffset.UTC).toEpochDay();
    long dayMicros = 86_400_000_000L;
    assertThat(periods(args, 0))
        .isEqualTo(
            day
                + ","
                + (day - 1) * dayMicros
                + ","
                + day * dayMicros
                + ","
                + (day + 1) * dayMicros
                + ","
                + (day + 2) * dayMicros);
    assertThat(script.keys("p:{t}:")).containsExactly("p:{t}:day@UTC:r");
  }

  @Test
  void skippedDay_periodOfLengthZero_sentAsTwoEqualStarts() {
    ZoneId apia = ZoneId.of("Pacific/Apia");
    Instant before = LocalDate.of(2011, 12, 29).atStartOfDay(apia).toInstant().plusSeconds(3600);
    ScriptTime time = new ScriptTime(null, Clock.fixed(before, ZoneOffset.UTC));
    LimiterScript script =
        new LimiterScript(List.of(Limit.parse("1/day@Pacific/Apia")), false, time, false);
    String[] parts = periods(script.args(List.of()), 0).split(",");
    assertThat(Long.parseLong(parts[0])).isEqualTo(LocalDate.of(2011, 12, 29).toEpochDay());
    assertThat(parts[3]).as("30 December 2011 lasts no time").isEqualTo(parts[4]);
  }

  /** The key suffix of a daily quota of 5 in {@code zone}, without and with plans. */
  private static List<String> keysIn(String zone) {
    Limit daily = Limit.parse("5/day@" + zone);
    ScriptTime time = new ScriptTime(null, Clock.systemUTC());
    return List.of(
        new LimiterScript(List.of(daily), false, time, false).keys("p:{t}:")[0],
        new LimiterScript(List.of(daily), false, time, true).keys("p:{t}:")[0]);
  }

  @Test
  void zoneSpellings_ofOneZonesRules_nameOneKey() {
    for (String utc :
        List.of("UTC", "Etc/UTC", "Z", "GMT", "UTC+00:00", "Etc/GMT", "Zulu", "UCT", "+00:00")) {
      assertThat(keysIn(utc)).as(utc).containsExactly("p:{t}:5:day@UTC", "p:{t}:day@UTC");
    }
    for (String plusOne : List.of("+01:00", "Etc/GMT-1", "UTC+1", "GMT+01:00", "+01")) {
      assertThat(keysIn(plusOne))
          .as(plusOne)
          .containsExactly("p:{t}:5:day@+01:00", "p:{t}:day@+01:00");
    }
  }

  @Test
  void regions_keepTheirIdsAsWritten_aliasesIncluded() {
    assertThat(keysIn("Europe/Paris"))
        .containsExactly("p:{t}:5:day@Europe/Paris", "p:{t}:day@Europe/Paris");
    assertThat(keysIn("Europe/Berlin"))
        .containsExactly("p:{t}:5:day@Europe/Berlin", "p:{t}:day@Europe/Berlin");
    assertThat(keysIn("+01:00")).isNotEqualTo(keysIn("Europe/Paris"));
    assertThat(keysIn("US/Eastern"))
        .as("an alias of America/New_York: not merged, see docs/redis.md")
        .containsExactly("p:{t}:5:day@US/Eastern", "p:{t}:day@US/Eastern");
  }
}
