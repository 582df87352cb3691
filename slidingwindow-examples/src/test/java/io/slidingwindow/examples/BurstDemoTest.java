package io.slidingwindow.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class BurstDemoTest {

  @Test
  void simulate_slidingWindowStaysWithinLimitWhereTheTokenBucketDoesNot() {
    BurstDemo.Result result = BurstDemo.simulate();

    assertThat(BurstDemo.maxInAnySecond(result.slidingWindow())).isEqualTo(BurstDemo.LIMIT);
    assertThat(BurstDemo.maxInAnySecond(result.tokenBucket())).isGreaterThan(BurstDemo.LIMIT);
  }

  @Test
  void print_reportsTheMaximaItComputed() {
    BurstDemo.Result result = BurstDemo.simulate();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    BurstDemo.print(result, new PrintStream(bytes, true, StandardCharsets.UTF_8));

    assertThat(bytes.toString(StandardCharsets.UTF_8))
        .contains(
            "Most grants in ANY 1-second interval: slidingwindow 100, token bucket "
                + BurstDemo.maxInAnySecond(result.tokenBucket()));
  }
}
