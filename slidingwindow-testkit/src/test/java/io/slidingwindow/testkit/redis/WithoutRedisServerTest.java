package io.slidingwindow.testkit.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

class WithoutRedisServerTest {

  @WithoutRedisServer
  static final class Marked {
    static void startServer() {
      RedisServerProcess.start();
    }

    static void startCluster() {
      RedisClusterProcesses.start(3, 0);
    }

    static void startFromLambda() {
      Runnable start = RedisServerProcess::start;
      start.run();
    }

    static final class Nested {
      static void startServer() {
        RedisServerProcess.startWithConfig("maxmemory 1mb");
      }
    }
  }

  static final class Unmarked {
    static void check() {
      RedisTools.refuseMarkedCaller();
    }
  }

  static final class MarkedByInheritance extends Base {
    static void startServer() {
      RedisServerProcess.start();
    }
  }

  @WithoutRedisServer
  abstract static class Base {}

  @Test
  void start_fromMarkedClass_refusedNamingTheClass() {
    assertThatThrownBy(Marked::startServer)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(Marked.class.getName())
        .hasMessageContaining("remove the mark");
    assertThatThrownBy(Marked::startCluster)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(Marked.class.getName());
    assertThatThrownBy(Marked::startFromLambda)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(Marked.class.getName());
  }

  @Test
  void start_fromClassNestedInMarkedOne_refused() {
    assertThatThrownBy(Marked.Nested::startServer)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(Marked.Nested.class.getName());
  }

  @Test
  void start_fromSubclassOfMarkedOne_refused() {
    assertThatThrownBy(MarkedByInheritance::startServer)
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining(MarkedByInheritance.class.getName());
  }

  @Test
  void start_fromAnotherThreadWhileAMarkedClassRuns_refused() throws Exception {
    MarkedClassGuard guard = new MarkedClassGuard();
    RedisTools.markedClassStarted(Marked.class);
    RedisTools.markedClassStarted(Marked.Nested.class); // a nested class's callbacks, inside
    RedisTools.markedClassEnded();
    try {
      CompletableFuture<RedisServerProcess> started =
          CompletableFuture.supplyAsync(RedisServerProcess::start);

      assertThatThrownBy(started::join)
          .hasCauseInstanceOf(IllegalStateException.class)
          .hasMessageContaining(Marked.class.getName())
          .hasMessageContaining("while it runs");
    } finally {
      RedisTools.markedClassEnded();
    }
    assertThatCode(Unmarked::check).doesNotThrowAnyException();
    assertThat(guard).isInstanceOf(org.junit.jupiter.api.extension.BeforeAllCallback.class);
    assertThat(WithoutRedisServer.class.getAnnotation(ExtendWith.class).value())
        .containsExactly(MarkedClassGuard.class);
  }

  @Test
  void check_fromUnmarkedClass_passes() {
    assertThatCode(Unmarked::check).doesNotThrowAnyException();
  }

  @Test
  void mark_carriesTheTagEveryValkeyPassExcludes() throws Exception {
    assertThat(WithoutRedisServer.class.getAnnotation(Tag.class).value())
        .isEqualTo(WithoutRedisServer.TAG);
    Path root = Path.of("").toAbsolutePath().getParent();
    for (Path pom :
        List.of(
            root.resolve("pom.xml"), root.resolve("slidingwindow-spring-boot4-tests/pom.xml"))) {
      String text = Files.readString(pom, StandardCharsets.UTF_8);
      Matcher valkey =
          Pattern.compile("<id>valkey</id>(.*?)</execution>", Pattern.DOTALL).matcher(text);
      assertThat(valkey.find()).as("a valkey execution in %s", pom).isTrue();
      assertThat(valkey.group(1))
          .as("the valkey execution of %s", pom)
          .contains("<excludedGroups>" + WithoutRedisServer.TAG + "</excludedGroups>");
    }
  }
}
