package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The service's command line, run as a process of its own: credentials that only Sentinel mode
 * takes are refused with an error, not ignored, whichever way they are given.
 */
class RateLimitServerMainIT {

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "-Dslidingwindow.server.redisUsername=app",
        "--redis-username app",
        "--redis-password secret",
      })
  void main_credentialsWithoutSentinel_refusedNamingTheSetting(String setting) throws Exception {
    Path output = dir.resolve("main.log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (setting.startsWith("-D")) {
      command.add(setting);
    }
    command.add("-cp");
    command.add(
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    command.add(RateLimitServerMain.class.getName());
    command.add("--redis");
    command.add("redis://127.0.0.1:1");
    if (!setting.startsWith("-D")) {
      command.addAll(List.of(setting.split(" ")));
    }
    Process process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(output.toFile())
            .start();
    boolean exited = process.waitFor(60, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }

    assertThat(exited).as("the process ends by itself").isTrue();
    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(Files.readString(output))
        .contains("need --redis-sentinel")
        .contains("-Dslidingwindow.server.redisUsername")
        .doesNotContain("secret");
  }
}
