package io.slidingwindow.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisToolsTest {

  @Test
  void missingTools_pathWithoutRedis_namesBothTools(@TempDir Path empty) {
    assertThat(RedisTools.missingTools(ServerFlavor.REDIS, empty.toString()))
        .isEqualTo("redis-server, redis-cli");
    assertThat(RedisTools.missingTools(ServerFlavor.REDIS, null))
        .isEqualTo("redis-server, redis-cli");
    assertThat(RedisTools.missingTools(ServerFlavor.VALKEY, empty.toString()))
        .isEqualTo("valkey-server, valkey-cli");
  }

  @Test
  void missingTools_pathWithOnlyServer_namesCli(@TempDir Path dir) throws Exception {
    Files.createFile(
        dir.resolve("redis-server"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));

    assertThat(RedisTools.missingTools(ServerFlavor.REDIS, "/nonexistent:" + dir))
        .isEqualTo("redis-cli");
    assertThat(RedisTools.missingTools(ServerFlavor.VALKEY, "/nonexistent:" + dir))
        .isEqualTo("valkey-server, valkey-cli");
  }

  @Test
  void notInstalled_anyTool_saysHowToInstall() {
    assertThat(RedisTools.notInstalled(ServerFlavor.REDIS, "redis-server").getMessage())
        .startsWith("redis-server not found on PATH")
        .contains("apt-get install -y redis-server redis-tools")
        .contains("scripts/test.sh");
    assertThat(RedisTools.notInstalled(ServerFlavor.VALKEY, "valkey-cli").getMessage())
        .startsWith("valkey-cli not found on PATH")
        .contains("slidingwindow.test.server=valkey")
        .contains("valkey-server valkey-tools");
  }

  @Test
  void parse_flavorNames_caseInsensitiveWithRedisDefault() {
    assertThat(ServerFlavor.parse(null)).isEqualTo(ServerFlavor.REDIS);
    assertThat(ServerFlavor.parse(" ")).isEqualTo(ServerFlavor.REDIS);
    assertThat(ServerFlavor.parse("Valkey")).isEqualTo(ServerFlavor.VALKEY);
    assertThat(ServerFlavor.parse("redis")).isEqualTo(ServerFlavor.REDIS);
    assertThatThrownBy(() -> ServerFlavor.parse("keydb"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("'keydb'");
  }

  @Test
  void freePort_calledTwice_givesDistinctBindableLoopbackPorts() {
    int first = RedisTools.freePort();
    int second = RedisTools.freePort();

    assertThat(first).isNotEqualTo(second).isBetween(1, 65535);
    assertThat(RedisTools.portIsFree(first)).isTrue();
    assertThat(RedisTools.portIsFree(second)).isTrue();
  }
}
