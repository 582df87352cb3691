package io.slidingwindow.benchmarks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.slidingwindow.benchmarks.redis.Results.Case;
import io.slidingwindow.benchmarks.redis.Results.Spread;
import java.util.List;
import org.junit.jupiter.api.Test;

class ResultsTest {

  static Case ofRate(String workload, int round, String contender, long requestsPerSecond) {
    return new Case(
        workload,
        round,
        contender,
        new Load.Count(requestsPerSecond, requestsPerSecond, 1_000_000_000L),
        0.0,
        0.5,
        1_000L * requestsPerSecond,
        2_000L * requestsPerSecond,
        3L * requestsPerSecond,
        "EVALSHA 1.00");
  }

  @Test
  void spreadOf_oddCount_isTheMiddleValueWithTheExtremes() {
    Spread s = Spread.of(List.of(5.0, 1.0, 3.0)).orElseThrow();

    assertThat(s).isEqualTo(new Spread(3.0, 1.0, 5.0));
  }

  @Test
  void spreadOf_evenCountAndNaN_averagesTheMiddlePairAndSkipsNaN() {
    Spread s = Spread.of(List.of(4.0, Double.NaN, 1.0, 2.0, 8.0)).orElseThrow();

    assertThat(s).isEqualTo(new Spread(3.0, 1.0, 8.0));
    assertThat(Spread.of(List.of(Double.NaN))).isEmpty();
  }

  @Test
  void ratio_perRound_pairsOnlyCasesOfTheSameRound() {
    List<Case> cases =
        List.of(
            ofRate("w", 1, "a", 100),
            ofRate("w", 2, "a", 300),
            ofRate("w", 3, "a", 200),
            ofRate("w", 1, "b", 100),
            ofRate("w", 2, "b", 100),
            ofRate("w", 3, "b", 400),
            ofRate("other", 1, "b", 1));

    Spread s = Results.ratio(cases, "w", "a", "b").orElseThrow();

    // Per round: 1.0, 3.0, 0.5; the ratio of the medians (200 / 100) would be 2.0.
    assertThat(s).isEqualTo(new Spread(1.0, 0.5, 3.0));
  }

  @Test
  void case_perRequestFigures_divideByRequests() {
    Case c = ofRate("w", 1, "a", 1_000);

    assertThat(c.perSecond()).isCloseTo(1_000, within(1e-9));
    assertThat(c.clientCpuMicrosPerRequest()).isCloseTo(1.0, within(1e-9));
    assertThat(c.redisCpuMicrosPerRequest()).isCloseTo(2.0, within(1e-9));
    assertThat(c.serverMicrosPerRequest()).isCloseTo(3.0, within(1e-9));
    assertThat(c.decisionsPerRedisCoreSecond()).isCloseTo(500_000, within(1e-6));
  }

  @Test
  void decisionsPerRedisCoreSecond_noServerCpuOrUnknown_isInfiniteOrNaN() {
    Load.Count count = new Load.Count(10, 0, 1_000_000_000L);
    Case idle = new Case("w", 1, "a", count, 0, 0, 5, 0, 0, "none");
    Case unknown = new Case("w", 1, "a", count, 0, 0, 5, -1, 0, "none");

    assertThat(idle.decisionsPerRedisCoreSecond()).isInfinite();
    assertThat(unknown.decisionsPerRedisCoreSecond()).isNaN();
  }

  @Test
  void whole_largeAndSpecialValues_groupsDigitsAndNamesTheSpecials() {
    assertThat(Results.whole(27_860_875.4)).isEqualTo("27 860 875");
    assertThat(Results.whole(Double.POSITIVE_INFINITY)).isEqualTo("∞");
    assertThat(Results.whole(Double.NaN)).isEqualTo("n/a");
  }
}
