package io.slidingwindow.server.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/server.md lists every setting the service reads, with its argument and default. */
class SettingsDocsTest {

  @Test
  void serverDocs_nameEveryOptionWithItsVariableAndDefault() throws IOException {
    String docs = Files.readString(Path.of("..", "docs", "server.md"));

    for (Option option : Option.values()) {
      String row =
          docs.lines()
              .filter(line -> line.startsWith("|"))
              .filter(line -> line.contains("`" + option.environmentVariable()))
              .findFirst()
              .orElseThrow(() -> new AssertionError("no row for " + option.environmentVariable()));
      if (!option.secret()) {
        assertThat(row).contains("`--" + option.optionName() + " ");
      }
      if (option.defaultText() != null) {
        assertThat(row).contains("`" + option.defaultText() + "`");
      }
    }
  }
}
