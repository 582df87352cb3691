package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ReactorNettyCheckTest {

  @ParameterizedTest
  @ValueSource(strings = {"1.3.0", "1.3.6", "1.3.7", "1.3.0-M3", "1.3.7-SNAPSHOT"})
  void warningFor_releaseThatLeavesConnectionsUnread_namesItAndTheFix(String version) {
    assertThat(ReactorNettyCheck.warningFor(version))
        .hasValueSatisfying(
            warning ->
                assertThat(warning)
                    .contains("Reactor Netty " + version)
                    .contains("issue 4361")
                    .contains("1.3.8 or newer"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"1.3.8", "1.3.10", "1.3.12-SNAPSHOT", "1.4.0", "1.2.11", "1.3.", "1.3.x"})
  void warningFor_fixedOrOtherRelease_isEmpty(String version) {
    assertThat(ReactorNettyCheck.warningFor(version)).isEmpty();
  }

  @Test
  void warningFor_unknownVersion_isEmpty() {
    assertThat(ReactorNettyCheck.warningFor(null)).isEmpty();
  }
}
