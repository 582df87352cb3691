package io.slidingwindow.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class ProcTest {

  @Test
  void parseCpuTimes_aggregateLine_sumsTheFirstEightFieldsAndReadsSteal() {
    String stat =
        """
        cpu  100 2 30 400 5 6 7 50 9 10
        cpu0 50 1 15 200 2 3 3 25 4 5
        intr 1 2 3
        """;

    Proc.CpuTimes times = Proc.parseCpuTimes(stat);

    assertThat(times.total()).isEqualTo(100 + 2 + 30 + 400 + 5 + 6 + 7 + 50);
    assertThat(times.steal()).isEqualTo(50);
  }

  @Test
  void stealPercentSince_deltas_isStealShareOfTheTotalDelta() {
    Proc.CpuTimes before = new Proc.CpuTimes(1_000, 10);
    Proc.CpuTimes after = new Proc.CpuTimes(1_200, 30);

    assertThat(after.stealPercentSince(before)).isCloseTo(10.0, within(1e-9));
  }

  @Test
  void stealPercentSince_unknownOrNoTimePassed_isNaN() {
    Proc.CpuTimes unknown = new Proc.CpuTimes(-1, -1);
    Proc.CpuTimes known = new Proc.CpuTimes(1_000, 10);

    assertThat(known.stealPercentSince(unknown)).isNaN();
    assertThat(known.stealPercentSince(known)).isNaN();
  }

  @Test
  void parseProcessTicks_commandWithSpacesAndParentheses_readsUtimePlusStime() {
    // Fields 14 (utime) and 15 (stime) are 1234 and 567; the name holds ") (" to mislead a split.
    String stat =
        "4242 (redis ) (x) S 1 4242 4242 0 -1 4194560 900 0 0 0 1234 567 0 0 20 0 5 0 100 0 0";

    assertThat(Proc.parseProcessTicks(stat)).isEqualTo(1234 + 567);
  }

  @Test
  void processCpuNanos_noSuchProcess_isMinusOne() {
    assertThat(Proc.processCpuNanos(-1)).isEqualTo(-1);
    assertThat(Proc.processCpuNanos(0)).isEqualTo(-1);
  }
}
