package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class RateLimitServerMainTest {

  @Test
  void environment_onWindows_namesInUpperCase_elsewhereAsGiven() {
    Map<String, String> variables = Map.of("Slidingwindow_Redis", "redis://r:6379", "Path", "C:\\");

    assertThat(RateLimitServerMain.environment(variables, "Windows Server 2022"))
        .containsOnly(
            Map.entry("SLIDINGWINDOW_REDIS", "redis://r:6379"), Map.entry("PATH", "C:\\"));
    assertThat(RateLimitServerMain.environment(variables, "Linux")).isSameAs(variables);
  }
}
