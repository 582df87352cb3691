package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ScriptTest {

  @Test
  void load_scripts_haveAHeaderAndTheSha1OfTheirText() {
    for (Script script : new Script[] {Script.LIMITER, Script.COUNTER}) {
      assertThat(script.text())
          .startsWith("-- slidingwindow")
          .contains("KEYS[")
          .contains("ARGV[")
          .contains("Returns");
      assertThat(script.sha1()).matches("[0-9a-f]{40}");
    }
    assertThat(Script.LIMITER.sha1()).isNotEqualTo(Script.COUNTER.sha1());
    assertThat(Script.PROBE.text())
        .startsWith("-- slidingwindow")
        .contains("KEYS[1]")
        .contains("Returns");
    assertThat(Script.PROBE.sha1()).isNotIn(Script.LIMITER.sha1(), Script.COUNTER.sha1());
  }
}
