package io.slidingwindow.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.CalendarPeriod;
import io.slidingwindow.Limit;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

/**
 * {@link CalendarPeriod#start} and {@link CalendarPeriod#end} against the brute-force definition
 * ({@link CalendarLogOracle}: the earliest instant whose local date is the first day or later), in
 * every zone the JVM knows, at random instants from 1970 to 2040 and at instants around the zones'
 * own transitions.
 */
class CalendarPeriodPropertiesTest {

  private static final List<String> ZONES = new ArrayList<>(ZoneId.getAvailableZoneIds());

  static {
    ZONES.sort(null);
  }

  @Property(tries = 400)
  void startAndEnd_anyZoneAndInstant_areTheEarliestInstantsOfTheFirstDays(@ForAll long seed) {
    Random random = new Random(seed);
    ZoneId zone = ZoneId.of(ZONES.get(random.nextInt(ZONES.size())));
    CalendarPeriod period =
        List.of(CalendarPeriod.DAY, CalendarPeriod.WEEK, CalendarPeriod.MONTH, CalendarPeriod.YEAR)
            .get(random.nextInt(4));
    long epochSecond = (long) (random.nextDouble() * 2_208_988_800L); // 1970 to 2040
    Instant instant = Instant.ofEpochSecond(epochSecond, random.nextInt(1_000_000_000));
    var next = zone.getRules().nextTransition(instant);
    if (next != null && random.nextBoolean()) {
      // around a transition of the zone: a few minutes either side
      instant = next.getInstant().plusSeconds(random.nextInt(7_201) - 3_600);
    }
    check(period, zone, instant);
  }

  @Test
  void oddDays_startWhereTheDefinitionSays() {
    // Santiago on the night to 7 April 2024: at midnight the clocks go back to 23:00 of the 6th,
    // which therefore lasts 25 hours; the 7th begins at the midnight that follows.
    ZoneId santiago = ZoneId.of("America/Santiago");
    Instant goBack = Instant.parse("2024-04-07T03:00:00Z");
    assertThat(CalendarPeriod.DAY.start(goBack.plusSeconds(1_800), santiago))
        .as("the repeated hour belongs to the 6th")
        .isEqualTo(Instant.parse("2024-04-06T03:00:00Z"));
    assertThat(CalendarPeriod.DAY.end(goBack, santiago))
        .isEqualTo(Instant.parse("2024-04-07T04:00:00Z"));
    // St. John's on 1 November 2009: at 00:01 the clocks went back to 23:01 of 31 October; the 1st
    // had begun at the first midnight, so the repeated stretch belongs to it, not to the 31st.
    ZoneId stJohns = ZoneId.of("America/St_Johns");
    Instant repeated = Instant.parse("2009-11-01T03:00:00Z"); // 23:30 on 31 October, again
    assertThat(repeated.atZone(stJohns).toLocalDate()).isEqualTo(LocalDate.of(2009, 10, 31));
    assertThat(CalendarPeriod.DAY.start(repeated, stJohns))
        .isEqualTo(Instant.parse("2009-11-01T02:30:00Z"));
    assertThat(CalendarPeriod.MONTH.start(repeated, stJohns))
        .isEqualTo(Instant.parse("2009-11-01T02:30:00Z"));
    // Santiago on 8 September 2024: midnight is skipped, the day starts at 01:00 local.
    assertThat(CalendarPeriod.DAY.start(Instant.parse("2024-09-08T12:00:00Z"), santiago))
        .isEqualTo(Instant.parse("2024-09-08T04:00:00Z"));
    // Havana on 10 March 2024: midnight is skipped, the day starts at 01:00 local (05:00Z).
    assertThat(
            CalendarPeriod.DAY.start(
                Instant.parse("2024-03-10T12:00:00Z"), ZoneId.of("America/Havana")))
        .isEqualTo(Instant.parse("2024-03-10T05:00:00Z"));
    // Apia skipped 30 December 2011: the 31st began where the 29th ended.
    ZoneId apia = ZoneId.of("Pacific/Apia");
    Instant endOf29 = CalendarPeriod.DAY.end(Instant.parse("2011-12-29T20:00:00Z"), apia);
    assertThat(CalendarPeriod.DAY.start(endOf29, apia)).isEqualTo(endOf29);
    assertThat(CalendarPeriod.DAY.end(endOf29, apia).getEpochSecond() - endOf29.getEpochSecond())
        .isEqualTo(86_400);
    // A day of 23 and one of 25 hours in Paris.
    ZoneId paris = ZoneId.of("Europe/Paris");
    assertThat(lengthHours(CalendarPeriod.DAY, Instant.parse("2026-03-29T12:00:00Z"), paris))
        .isEqualTo(23);
    assertThat(lengthHours(CalendarPeriod.DAY, Instant.parse("2026-10-25T12:00:00Z"), paris))
        .isEqualTo(25);
    assertThat(CalendarPeriod.MONTH.start(Instant.parse("2026-11-15T00:00:00Z"), paris))
        .isEqualTo(Instant.parse("2026-10-31T23:00:00Z"));
    assertThat(CalendarPeriod.WEEK.start(Instant.parse("2026-11-27T10:00:00Z"), ZoneId.of("UTC")))
        .as("weeks start on Monday")
        .isEqualTo(Instant.parse("2026-11-23T00:00:00Z"));
  }

  private static long lengthHours(CalendarPeriod period, Instant instant, ZoneId zone) {
    return (period.end(instant, zone).getEpochSecond()
            - period.start(instant, zone).getEpochSecond())
        / 3_600;
  }

  private static void check(CalendarPeriod period, ZoneId zone, Instant instant) {
    CalendarLogOracle oracle = new CalendarLogOracle(Limit.calendar(1, period, zone));
    long epochNanos = instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
    LocalDate first = oracle.periodOf(epochNanos);
    Instant start = period.start(instant, zone);
    Instant end = period.end(instant, zone);
    String where = period + " in " + zone + " at " + instant;
    assertThat(nanos(start)).as("start, " + where).isEqualTo(oracle.startOf(first));
    assertThat(nanos(end)).as("end, " + where).isEqualTo(oracle.endOf(epochNanos));
    assertThat(start).as(where).isBeforeOrEqualTo(instant);
    assertThat(end).as(where).isAfter(instant);
    int shift =
        zone.getRules().getOffset(end).getTotalSeconds()
            - zone.getRules().getOffset(start).getTotalSeconds();
    if (Math.abs(shift) <= 7_200) {
      assertThat(end.getEpochSecond() - start.getEpochSecond())
          .as("at most the period's longest, where the offset moves by two hours at most, " + where)
          .isLessThanOrEqualTo(period.longest().toSeconds());
    }
  }

  private static long nanos(Instant instant) {
    return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
  }
}
