package io.slidingwindow.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisToolsTest {

  @Test
  void missingTools_pathWithoutRedis_namesBothTools(@TempDir Path empty) {
    assertThat(RedisTools.missingTools(empty.toString())).isEqualTo("redis-server, redis-cli");
    assertThat(RedisTools.missingTools(null)).isEqualTo("redis-server, redis-cli");
  }

  @Test
  void missingTools_pathWithOnlyServer_namesCli(@TempDir Path dir) throws Exception {
    Files.createFile(
        dir.resolve("redis-server"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));

    assertThat(RedisTools.missingTools("/nonexistent:" + dir)).isEqualTo("redis-cli");
  }

  @Test
  void notInstalled_anyTool_saysHowToInstall() {
    assertThat(RedisTools.notInstalled("redis-server").getMessage())
        .startsWith("redis-server not found on PATH")
        .contains("apt-get install -y redis-server redis-tools");
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
