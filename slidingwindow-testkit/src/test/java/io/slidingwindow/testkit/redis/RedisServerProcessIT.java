package io.slidingwindow.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;

class RedisServerProcessIT {

  @Test
  void start_default_answersSetAndGetOnLoopback() {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      assertThat(redis.uri()).isEqualTo("redis://127.0.0.1:" + redis.port());
      assertThat(redis.cli("SET", "greeting", "hello")).isEqualTo("OK");
      assertThat(redis.cli("GET", "greeting")).isEqualTo("hello");
      assertThat(redis.cli("CONFIG", "GET", "bind")).isEqualTo("bind\n127.0.0.1");
      assertThat(redis.cli("CONFIG", "GET", "save")).isEqualTo("save");
      assertThat(redis.cli("CONFIG", "GET", "appendonly")).isEqualTo("appendonly\nno");
      assertThatThrownBy(() -> redis.cli("INCR", "greeting"))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("ERR value is not an integer");
    }
  }

  @Test
  void start_flavorProperty_runsThatServer() {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      String info = redis.cli("INFO", "server");
      if (ServerFlavor.current() == ServerFlavor.VALKEY) {
        assertThat(info).contains("server_name:valkey").containsPattern("valkey_version:[89]\\.");
      } else {
        assertThat(info).doesNotContain("valkey").containsPattern("redis_version:[7-9]\\.");
      }
    }
  }

  @Test
  void kill_running_stopsAnsweringAndRestartComesBackOnSamePortEmpty() {
    try (RedisServerProcess redis = RedisServerProcess.start()) {
      int port = redis.port();
      redis.cli("SET", "k", "v");
      long pidBefore = processId(redis);

      redis.kill();

      assertThat(redis.isAlive()).isFalse();
      assertThatThrownBy(() -> redis.cli("PING")).isInstanceOf(IllegalStateException.class);

      redis.restart();

      assertThat(redis.port()).isEqualTo(port);
      assertThat(redis.cli("PING")).isEqualTo("PONG");
      assertThat(redis.cli("EXISTS", "k")).isEqualTo("0");
      long pidAfter = processId(redis);
      assertThat(pidAfter).isNotEqualTo(pidBefore);
    }
  }

  @Test
  void close_running_freesPortAndDeletesDirectory() {
    RedisServerProcess redis = RedisServerProcess.start();
    int port = redis.port();
    Path dir = redis.logFile().getParent();
    assertThat(RedisTools.portIsFree(port)).isFalse();
    assertThat(dir).isDirectory();

    redis.close();

    assertThat(redis.isAlive()).isFalse();
    assertThat(RedisTools.portIsFree(port)).isTrue();
    assertThat(Files.exists(dir)).isFalse();
    assertThatThrownBy(redis::restart).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void start_serverRefusesConfig_throwsWithItsOutputAndLeavesNothingBehind() {
    int trackedBefore = RedisTools.tracked();

    assertThatThrownBy(
            () ->
                RedisServerProcess.start(
                    RedisServerProcess.Kind.STANDALONE, List.of("no-such-directive yes")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("did not start after 5 attempts")
        .hasMessageContaining("no-such-directive");
    assertThat(RedisTools.tracked()).isEqualTo(trackedBefore);
  }

  @Test
  void start_portTakenAfterRelease_retriesOnAnotherPort() throws Exception {
    try (ServerSocket squatter = new ServerSocket()) {
      squatter.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
      int taken = squatter.getLocalPort();
      int[] calls = {0};
      IntSupplier ports = () -> calls[0]++ == 0 ? taken : RedisTools.freePort();

      try (RedisServerProcess redis =
          RedisServerProcess.start(RedisServerProcess.Kind.STANDALONE, List.of(), ports)) {
        assertThat(calls[0]).isEqualTo(2);
        assertThat(redis.port()).isNotEqualTo(taken);
        assertThat(redis.cli("PING")).isEqualTo("PONG");
      }
    }
  }

  private static long processId(RedisServerProcess redis) {
    return redis
        .cli("INFO", "server")
        .lines()
        .filter(line -> line.startsWith("process_id:"))
        .map(line -> Long.parseLong(line.substring("process_id:".length()).trim()))
        .findFirst()
        .orElseThrow();
  }
}
