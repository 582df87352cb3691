package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class TickerTest {

  @Test
  void coarse_advancesWithTheSystemClockAndNeverRunsAhead() {
    Ticker coarse = Ticker.coarse();
    long first = coarse.read();

    Awaitility.await()
        .atMost(5, TimeUnit.SECONDS)
        .pollInterval(1, TimeUnit.MILLISECONDS)
        .until(() -> coarse.read() - first >= 2_000_000);

    long reading = coarse.read();
    assertThat(reading - System.nanoTime())
        .as("never ahead of System.nanoTime")
        .isLessThanOrEqualTo(0);
    assertThat(Ticker.coarse()).isSameAs(coarse);
  }

  @Test
  void system_readsSystemNanoTime() {
    long before = System.nanoTime();
    long read = Ticker.system().read();
    long after = System.nanoTime();

    assertThat(read - before).isGreaterThanOrEqualTo(0);
    assertThat(after - read).isGreaterThanOrEqualTo(0);
  }
}
