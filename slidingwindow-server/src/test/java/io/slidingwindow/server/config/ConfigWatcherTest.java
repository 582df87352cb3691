package io.slidingwindow.server.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.server.ConfigException;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Outcome;
import io.slidingwindow.server.decide.TestRequest;
import io.slidingwindow.testkit.FakeTicker;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigWatcherTest {

  private static final String LIMITS =
      """
      domain: d
      descriptors:
        - key: a
          rate_limit:
            unit: hour
            requests_per_unit: 2
      """;

  @TempDir Path dir;
  private final List<Boolean> reloads = new ArrayList<>();

  @Test
  void check_changedFile_reloadsAndKeepsTheCountsOfUnchangedRules()
      throws IOException, ConfigException {
    Path file = dir.resolve("d.yaml");
    Files.writeString(file, LIMITS);
    ConfigWatcher watcher = new ConfigWatcher(file);
    Decider decider = TestRequest.decider(watcher.load(), new FakeTicker(), 100);
    watcher.attach(listener(decider));
    decide(decider, "a");
    decide(decider, "a");

    assertThat(watcher.check()).isFalse();
    Files.writeString(
        file,
        LIMITS + "  - key: b\n    rate_limit:\n      unit: hour\n      requests_per_unit: 1\n");
    assertThat(watcher.check()).isTrue();

    assertThat(decide(decider, "a")).isEqualTo(Code.OVER_LIMIT);
    assertThat(decide(decider, "b")).isEqualTo(Code.OK);
    assertThat(decide(decider, "b")).isEqualTo(Code.OVER_LIMIT);
    assertThat(reloads).containsExactly(true);
  }

  @Test
  void check_badFile_keepsTheLastGoodConfigAndNamesTheLine() throws IOException, ConfigException {
    Path file = dir.resolve("d.yaml");
    Files.writeString(file, LIMITS);
    ConfigWatcher watcher = new ConfigWatcher(dir);
    Decider decider = TestRequest.decider(watcher.load(), new FakeTicker(), 100);
    watcher.attach(listener(decider));
    decide(decider, "a");

    Files.writeString(file, LIMITS.replace("unit: hour", "unit: hour\n      window: 5s"));
    assertThat(watcher.check()).isFalse();

    assertThat(watcher.lastError())
        .isEqualTo("d.yaml line 6: rate_limit has both unit and window; give one");
    assertThat(decide(decider, "a")).isEqualTo(Code.OK);
    assertThat(decide(decider, "a")).isEqualTo(Code.OVER_LIMIT);
    assertThat(watcher.check()).isFalse();
    assertThat(reloads).containsExactly(false);

    Files.writeString(file, LIMITS.replace("requests_per_unit: 2", "requests_per_unit: 2 # same"));
    assertThat(watcher.check()).isTrue();
    assertThat(watcher.lastError()).isNull();
    assertThat(decide(decider, "a")).isEqualTo(Code.OVER_LIMIT);
  }

  /**
   * Rules that replace each other would leave a request matching both counted by neither: before
   * the reload was refused, every such request was answered OK, however many came.
   */
  @Test
  void check_replacesMadeACycle_keepsTheLastGoodConfigSoTheRequestIsStillCounted()
      throws IOException, ConfigException {
    String rule = "  - key: %s\n    rate_limit: {name: r%s, %sunit: hour, requests_per_unit: 2}\n";
    String good =
        "domain: d\ndescriptors:\n"
            + rule.formatted("a", "a", "replaces: [{name: rb}], ")
            + rule.formatted("b", "b", "");
    Path file = dir.resolve("d.yaml");
    Files.writeString(file, good);
    ConfigWatcher watcher = new ConfigWatcher(file);
    Decider decider = TestRequest.decider(watcher.load(), new FakeTicker(), 100);
    watcher.attach(listener(decider));

    Files.writeString(file, good.replace("rb, unit", "rb, replaces: [{name: ra}], unit"));
    assertThat(watcher.check()).isFalse();

    assertThat(watcher.lastError())
        .startsWith("d.yaml line 4: replaces form a cycle")
        .contains("'ra' (d.yaml line 4) replaces 'rb', 'rb' (d.yaml line 6) replaces 'ra'");
    TestRequest both =
        TestRequest.of("d", TestRequest.descriptor("a", "x"), TestRequest.descriptor("b", "x"));
    assertThat(decider.decide(both).overall()).isEqualTo(Code.OK);
    assertThat(decider.decide(both).overall()).isEqualTo(Code.OK);
    assertThat(decider.decide(both).overall()).isEqualTo(Code.OVER_LIMIT);
    assertThat(decider.decide(both).status(1).outcome()).isEqualTo(Outcome.UNMATCHED);
    assertThat(reloads).containsExactly(false);
  }

  private ConfigWatcher.Listener listener(Decider decider) {
    return new ConfigWatcher.Listener() {
      @Override
      public void apply(RateLimitConfig config) throws ConfigException {
        decider.apply(config);
      }

      @Override
      public void reloaded(boolean success) {
        reloads.add(success);
      }
    };
  }

  private static Code decide(Decider decider, String key) {
    return decider.decide(TestRequest.of("d", TestRequest.descriptor(key, "x"))).overall();
  }
}
