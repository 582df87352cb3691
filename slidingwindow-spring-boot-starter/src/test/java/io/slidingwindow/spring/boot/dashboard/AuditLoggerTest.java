package io.slidingwindow.spring.boot.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The endpoint's audit lines go to the one logger the docs name, whatever the classes that write
 * them are called.
 */
class AuditLoggerTest {

  private static final String NAME = "io.slidingwindow.spring.boot.dashboard.SlidingWindowQuotas";

  @ParameterizedTest
  @ValueSource(classes = {SlidingWindowQuotas.class, SlidingWindowPlans.class, BrowserGuard.class})
  void auditLines_goToTheLoggerTheDocsName(Class<?> writer) throws ReflectiveOperationException {
    Field log = writer.getDeclaredField("LOG");
    log.setAccessible(true);

    assertThat(((System.Logger) log.get(null)).getName()).isEqualTo(NAME);
  }

  @Test
  void docs_nameTheLogger() throws Exception {
    for (String doc : new String[] {"spring.md", "plans.md"}) {
      Path path = Path.of("..", "docs", doc);
      assertThat(Files.readString(path)).as(doc).contains(NAME);
    }
  }
}
