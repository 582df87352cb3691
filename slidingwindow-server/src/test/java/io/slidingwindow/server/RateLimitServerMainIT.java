package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The service's command line, run as a process of its own: help and version, and settings refused
 * with a message that names them, before anything starts.
 */
class RateLimitServerMainIT {

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "--redis-password secret",
        "-Dslidingwindow.server.redisPassword=secret",
        "--admin-token secret"
      })
  void main_secretOnTheCommandLine_refusedNamingTheVariable(String setting) throws Exception {
    Result result = run(Map.of(), setting, "--redis", "redis://127.0.0.1:1");

    assertThat(result.exit()).isEqualTo(2);
    assertThat(result.output())
        .contains("is a secret, read from the environment only")
        .containsPattern("SLIDINGWINDOW_(REDIS_PASSWORD|ADMIN_TOKEN)_FILE")
        .doesNotContain("secret'");
  }

  @Test
  void main_credentialsWithoutAStore_refusedNamingTheSetting() throws Exception {
    Result result = run(Map.of("SLIDINGWINDOW_REDIS_USERNAME", "app"), "");

    assertThat(result.exit()).isEqualTo(2);
    assertThat(result.output()).contains("Redis credentials need a Redis store");
  }

  @Test
  void main_badValueFromTheEnvironment_refusedNamingTheVariableAndValue() throws Exception {
    Result result = run(Map.of("SLIDINGWINDOW_GRPC_PORT", "70000"), "");

    assertThat(result.exit()).isEqualTo(2);
    assertThat(result.output())
        .contains("SLIDINGWINDOW_GRPC_PORT '70000': grpcPort must be from 0 to 65535, was 70000");
  }

  @Test
  void main_helpAndVersion_printAndExitZero() throws Exception {
    Result help = run(Map.of(), "--help");
    Result version = run(Map.of(), "--version");

    assertThat(help.exit()).isZero();
    assertThat(help.output())
        .contains("--grpc-port N", "SLIDINGWINDOW_GRPC_PORT", "default: 8081")
        .contains("SLIDINGWINDOW_REDIS_PASSWORD[_FILE]", "SLIDINGWINDOW_ADMIN_TOKEN[_FILE]")
        .contains("SLIDINGWINDOW_TLS_CLIENT_CA", "SLIDINGWINDOW_LOG_FORMAT");
    assertThat(version.exit()).isZero();
    assertThat(version.output()).matches("slidingwindow-server \\d+\\.\\d+\\.\\d+.*\\s*");
  }

  private record Result(int exit, String output) {}

  private Result run(Map<String, String> environment, String setting, String... more)
      throws Exception {
    Path output = dir.resolve("main-" + System.nanoTime() + ".log");
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    if (setting.startsWith("-D")) {
      command.add(setting);
    }
    command.add("-cp");
    command.add(
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path")));
    command.add(RateLimitServerMain.class.getName());
    if (setting.startsWith("--")) {
      command.addAll(List.of(setting.split(" ")));
    }
    command.addAll(List.of(more));
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(output.toFile());
    builder.environment().keySet().removeIf(name -> name.startsWith("SLIDINGWINDOW_"));
    builder.environment().putAll(environment);
    Process process = builder.start();
    boolean exited = process.waitFor(60, TimeUnit.SECONDS);
    if (!exited) {
      process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
    }
    assertThat(exited).as("the process ends by itself").isTrue();
    return new Result(process.exitValue(), Files.readString(output));
  }
}
