package io.slidingwindow.benchmarks.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ServerLoadTest {

  @Test
  void parse_onlyThePort_takesTheDefaults() {
    LoadOptions o = LoadOptions.parse(new String[] {"--port", "9000"});

    assertThat(o.port()).isEqualTo(9000);
    assertThat(o.concurrency()).containsExactly(64, 256);
    assertThat(o.permits()).isEqualTo(100);
    assertThat(o.hotShare()).isEqualTo(0.5);
    assertThat(o.windowNanos()).isEqualTo(1_000_000_000L);
    assertThat(o.slackNanos()).isEqualTo(1_000_000L);
  }

  @Test
  void parse_listsAndNames_readsThem() {
    LoadOptions o =
        LoadOptions.parse(
            new String[] {"--port", "1", "--mode", "redis", "--concurrency", "8, 16,32"});

    assertThat(o.mode()).isEqualTo("redis");
    assertThat(o.concurrency()).isEqualTo(List.of(8, 16, 32));
  }

  @Test
  void parse_unknownOrOutOfRange_throwsNamingTheOption() {
    assertThatThrownBy(() -> LoadOptions.parse(new String[] {"--port", "1", "--speed", "2"}))
        .hasMessageContaining("--speed");
    assertThatThrownBy(() -> LoadOptions.parse(new String[] {"--port", "0"}))
        .hasMessageContaining("--port");
    assertThatThrownBy(() -> LoadOptions.parse(new String[] {"--port", "1", "--hot-share", "1.5"}))
        .hasMessageContaining("--hot-share");
    assertThatThrownBy(() -> LoadOptions.parse(new String[] {"--port"}))
        .hasMessageContaining("--port");
  }

  @Test
  void configYaml_limitAndWindow_areWrittenForTheLoadDomain() {
    String yaml = ServerLoad.configYaml(1000, 1000, "closed");

    assertThat(yaml)
        .contains("domain: load")
        .contains("failure_policy: closed")
        .contains("- key: user")
        .contains("requests_per_unit: 1000")
        .contains("window: 1000ms");
  }

  @Test
  void markdown_row_hasAsManyColumnsAsTheHeader() {
    Latencies latencies = new Latencies();
    latencies.record(2_000_000);
    ServerLoad.Row row =
        new ServerLoad.Row(
            "memory", 64, 12_345.6, latencies, 0.5, 3, 0, 777, 998, 1000, 0, 3.5, 1.25, 0);

    String line = row.markdown();
    int headerColumns = ServerLoad.header().lines().findFirst().orElseThrow().split("\\|").length;

    assertThat(line.split("\\|")).hasSize(headerColumns);
    assertThat(line)
        .startsWith("| memory | 64 | 12,346 | 2.00 |")
        .contains("| 50.0 % | 3 | 0 | 777 | 998 / 1000 | 0 |");
  }
}
