package io.slidingwindow.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import org.junit.jupiter.api.Test;

/**
 * {@code io.slidingwindow.internal} is no API: only the core itself and the modules built on its
 * implementation (the testkit and the Redis backend) may use it. The examples see every published
 * module, so the check runs here, over the main classes of all of them.
 */
class InternalAccessTest {

  private static final ArchRule ONLY_CORE_TESTKIT_AND_REDIS_USE_INTERNAL =
      noClasses()
          .that()
          .resideOutsideOfPackages(
              "io.slidingwindow", // the core's API
              "io.slidingwindow.internal..",
              "io.slidingwindow.testkit..",
              "io.slidingwindow.redis..")
          .should()
          .dependOnClassesThat()
          .resideInAPackage("io.slidingwindow.internal..")
          .because("io.slidingwindow.internal may change in any release");

  @Test
  void publishedModules_outsideCoreTestkitAndRedis_doNotUseInternal() {
    JavaClasses classes =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.slidingwindow");
    // Not vacuous: the classes of every module are there to be checked.
    for (String module :
        new String[] {"internal", "redis", "servlet", "spring", "testkit", "examples"}) {
      assertThat(classes.stream().map(JavaClass::getPackageName))
          .as("classes imported from io.slidingwindow." + module)
          .anyMatch(p -> p.equals("io.slidingwindow." + module));
    }

    ONLY_CORE_TESTKIT_AND_REDIS_USE_INTERNAL.check(classes);
  }

  @Test
  void rule_classOutsideThoseModulesUsingInternal_isReported() {
    JavaClasses fixture = new ClassFileImporter().importClasses(UsesInternal.class);

    EvaluationResult result = ONLY_CORE_TESTKIT_AND_REDIS_USE_INTERNAL.evaluate(fixture);

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains(UsesInternal.class.getName());
  }

  /** What the rule forbids: an examples class calling into the core's internals. */
  static final class UsesInternal {
    static Object check(Object value) {
      return io.slidingwindow.internal.Checks.requireNonNull(value, "value");
    }
  }
}
