package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class StatusRangesTest {

  @Test
  void parse_statusesAndRanges_containExactlyThoseStatuses() {
    StatusRanges ranges = StatusRanges.parse(" 401 ", "500-503", "429");

    assertThat(ranges.entries()).containsExactly("401", "500-503", "429");
    assertThat(List.of(401, 429, 500, 501, 503))
        .allSatisfy(s -> assertThat(ranges.contains(s)).as("%s", s).isTrue());
    assertThat(List.of(100, 200, 400, 402, 428, 430, 499, 504, 599, 600, -1, 0))
        .allSatisfy(s -> assertThat(ranges.contains(s)).as("%s", s).isFalse());
  }

  @Test
  void parse_wholeRange_holdsEveryStatusFrom100To599() {
    StatusRanges all = StatusRanges.parse("100-599");

    assertThat(all.contains(100)).isTrue();
    assertThat(all.contains(599)).isTrue();
    assertThat(all.contains(99)).isFalse();
    assertThat(all.contains(600)).isFalse();
    assertThat(all).isEqualTo(StatusRanges.parse("100-299", "300-599"));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "600 | a status is from 100 to 599, was '600'",
        "099 | a status is from 100 to 599, was '099'",
        "4xx | a status is three digits, was '4xx'",
        "400- | a status is three digits, was '400-'",
        "-500 | a status is three digits, was '-500'",
        "500-400 | a range goes from low to high, was '500-400'",
        "400-500-599 | a status is three digits, was '400-500-599'",
        "'' | a status is three digits, was ''",
      })
  void parse_badEntry_namesItsIndexAndValue(String entry, String reason) {
    assertThatThrownBy(() -> StatusRanges.parse("401", entry))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("[1] must be a status (401) or a range of statuses (400-599); " + reason);
  }

  @Test
  void parse_nothing_isRejected() {
    assertThatThrownBy(() -> StatusRanges.parse(List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one status");
  }

  @Test
  void httpRule_countStatusesWithCountRefusedAttempts_isRejected() {
    HttpRule.Builder rule =
        HttpRule.builder("logins")
            .limit(io.slidingwindow.Limit.parse("3/10s"))
            .countRefusedAttempts(true)
            .countStatuses(StatusRanges.parse("400-599"));

    assertThatThrownBy(rule::build)
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("countStatuses: rule 'logins' counts refused attempts");
  }
}
