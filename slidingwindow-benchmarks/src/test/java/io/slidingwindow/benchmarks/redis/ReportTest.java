package io.slidingwindow.benchmarks.redis;

import static io.slidingwindow.benchmarks.redis.ResultsTest.ofRate;
import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.benchmarks.redis.Results.Case;
import io.slidingwindow.benchmarks.redis.Results.Round;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReportTest {

  private static final String OURS = Contenders.OURS;
  private static final String PEER = Contenders.BUCKET4J;

  private static String render(List<Round> rounds) {
    List<Case> cases =
        List.of(
            ofRate("distinct", 1, OURS, 200),
            ofRate("distinct", 1, PEER, 100),
            ofRate("distinct", 2, PEER, 100),
            ofRate("distinct", 2, OURS, 400));
    return new Report(List.of("distinct"), List.of(OURS, Contenders.REDISSON, PEER), cases, rounds)
        .render("## header", "");
  }

  @Test
  void render_twoRounds_givesMedianMinMaxOfThroughputAndOfPerRoundRatios() {
    String text =
        render(
            List.of(
                new Round("distinct", 1, List.of(OURS, PEER), 0.0, 0.1),
                new Round("distinct", 2, List.of(PEER, OURS), 0.0, 0.1)));

    assertThat(text).contains("| " + OURS + " | 300 (200, 400) |");
    assertThat(text).contains("| " + PEER + " | 100 (100, 100) |");
    assertThat(text).contains("| ours (blocking) / Bucket4j (CAS) | 3.00 (2.00, 4.00) |");
    assertThat(text).contains("| distinct | 2 | Bucket4j (CAS) → ours (blocking) |");
    // A contender that was not measured gets no row.
    assertThat(text).doesNotContain("| " + Contenders.REDISSON + " |");
    assertThat(text).contains("No round had more than 5 % steal.");
  }

  @Test
  void render_roundWithStealAboveFivePercent_flagsThatRoundAndSaysToRerun() {
    String text =
        render(
            List.of(
                new Round("distinct", 1, List.of(OURS, PEER), 5.5, 0.1),
                new Round("distinct", 2, List.of(PEER, OURS), 4.9, 0.1)));

    assertThat(text).containsOnlyOnce("**STEAL > 5 %**");
    assertThat(text)
        .contains(
            "| distinct | 1 | ours (blocking) → Bucket4j (CAS) | 5.5 % | 0.10 |"
                + " **STEAL > 5 %** |");
    assertThat(text).contains("1 round(s) had more than 5 % steal");
  }

  @Test
  void render_jedisPair_givesOursOverJedisAgainstBucket4jOverJedis() {
    String oursJedis = Contenders.OURS_JEDIS;
    String peerJedis = Contenders.BUCKET4J_JEDIS;
    List<Case> cases =
        List.of(
            ofRate("distinct", 1, oursJedis, 300),
            ofRate("distinct", 1, peerJedis, 100),
            ofRate("distinct", 2, peerJedis, 200),
            ofRate("distinct", 2, oursJedis, 100));

    String text =
        new Report(List.of("distinct"), List.of(oursJedis, peerJedis), cases, List.of())
            .render("## header", "");

    assertThat(text).contains("| ours (Jedis) / Bucket4j (Jedis) | 1.75 (0.50, 3.00) |");
    // Ours over Lettuce was not measured: no row compares it.
    assertThat(text).doesNotContain("| ours (blocking) /");
  }

  @Test
  void ratioPairs_everyContender_endsWithTheJedisPairAndComparesAsyncOnlyWithPeers() {
    List<String> pairs =
        Report.ratioPairs(Contenders.NAMES).stream().map(p -> p[0] + " / " + p[1]).toList();

    assertThat(pairs.get(pairs.size() - 1))
        .isEqualTo(Contenders.OURS_JEDIS + " / " + Contenders.BUCKET4J_JEDIS);
    assertThat(pairs)
        .contains(Contenders.OURS + " / " + Contenders.OURS_JEDIS)
        .contains(Contenders.OURS_ASYNC + " / " + Contenders.BUCKET4J_JEDIS)
        .doesNotContain(Contenders.OURS_ASYNC + " / " + Contenders.OURS_JEDIS)
        .doesNotContain(Contenders.OURS_JEDIS + " / " + Contenders.BUCKET4J);
  }

  @Test
  void ratioPairs_jedisPeerNotListed_hasNoJedisPair() {
    List<String[]> pairs =
        Report.ratioPairs(List.of(Contenders.OURS, Contenders.OURS_JEDIS, Contenders.BUCKET4J));

    assertThat(pairs).noneMatch(p -> p[0].equals(Contenders.OURS_JEDIS));
  }
}
