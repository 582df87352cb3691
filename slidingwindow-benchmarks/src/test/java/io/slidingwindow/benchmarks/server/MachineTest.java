package io.slidingwindow.benchmarks.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class MachineTest {

  @Test
  void parseCpuTimes_aggregateLine_sumsTheFirstEightFieldsAndReadsSteal() {
    String stat = "cpu  100 2 30 400 5 6 7 50 9 10\ncpu0 50 1 15 200 2 3 3 25 4 5\n";

    Machine.CpuTimes times = Machine.parseCpuTimes(stat);

    assertThat(times.total()).isEqualTo(600);
    assertThat(times.steal()).isEqualTo(50);
  }

  @Test
  void stealPercentSince_deltas_isTheStolenShare() {
    Machine.CpuTimes before = new Machine.CpuTimes(1_000, 10);
    Machine.CpuTimes after = new Machine.CpuTimes(1_400, 30);

    assertThat(after.stealPercentSince(before)).isCloseTo(5.0, within(1e-9));
    assertThat(after.stealPercentSince(after)).isNaN();
    assertThat(after.stealPercentSince(new Machine.CpuTimes(-1, -1))).isNaN();
  }
}
