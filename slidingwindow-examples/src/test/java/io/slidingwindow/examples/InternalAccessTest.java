package io.slidingwindow.examples;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.EvaluationResult;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import io.slidingwindow.webflux.internal.ReactiveKeySource;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * {@code io.slidingwindow.internal} is no API: only the core itself and the modules built on its
 * implementation (the testkit and the Redis backend) may use it. No public type outside an {@code
 * internal} package shows an internal type in its public signatures, and the Spring web modules'
 * API packages hold only their listed public types. The examples see every published module, so the
 * checks run here, over the main classes of all of them.
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

  /**
   * The public types of the API packages of slidingwindow-webmvc and slidingwindow-webflux. A new
   * public type there is API from then on: list it here, or put it in the module's {@code internal}
   * package.
   */
  private static final Set<String> WEB_API =
      Set.of(
          "io.slidingwindow.webmvc.RateLimitInterceptor",
          "io.slidingwindow.webmvc.RateLimitInterceptor$Builder",
          "io.slidingwindow.webflux.ReactiveClientKeys",
          "io.slidingwindow.webflux.ReactiveKeyResolver",
          "io.slidingwindow.webflux.ReactiveRateLimitFilter",
          "io.slidingwindow.webflux.ReactiveRateLimitFilter$Builder");

  private static final DescribedPredicate<JavaClass> PUBLIC_OUTSIDE_INTERNAL =
      DescribedPredicate.describe(
          "are public and outside internal packages",
          c -> isVisible(c) && !c.getPackageName().contains(".internal"));

  private static final ArchRule API_SIGNATURES_NAME_NO_INTERNAL_TYPE =
      classes()
          .that(PUBLIC_OUTSIDE_INTERNAL)
          .should(nameNoInternalTypeInTheirApi())
          .because("a type of an internal package may change in any release");

  private static JavaClasses mainClasses() {
    return new ClassFileImporter()
        .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.slidingwindow");
  }

  /** Public, and nested only in public types: what an application can name. */
  private static boolean isVisible(JavaClass c) {
    for (Optional<JavaClass> at = Optional.of(c);
        at.isPresent();
        at = at.get().getEnclosingClass()) {
      if (!at.get().getModifiers().contains(JavaModifier.PUBLIC)) {
        return false;
      }
    }
    return true;
  }

  private static boolean isApi(Set<JavaModifier> modifiers) {
    return modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED);
  }

  /**
   * The class's supertypes and its public and protected constructors, methods and fields name no
   * type of an {@code internal} package, type arguments included.
   */
  private static ArchCondition<JavaClass> nameNoInternalTypeInTheirApi() {
    return new ArchCondition<>("name no type of an internal package in their API") {
      @Override
      public void check(JavaClass api, ConditionEvents events) {
        List<String> leaks = new ArrayList<>();
        api.getRawSuperclass().ifPresent(t -> leaked("extends", List.of(t), leaks));
        leaked("implements", api.getRawInterfaces(), leaks);
        for (JavaCodeUnit unit : api.getCodeUnits()) {
          if (isApi(unit.getModifiers())) {
            List<JavaClass> types = new ArrayList<>();
            types.addAll(unit.getReturnType().getAllInvolvedRawTypes());
            for (JavaType parameter : unit.getParameterTypes()) {
              types.addAll(parameter.getAllInvolvedRawTypes());
            }
            leaked(unit.getFullName(), types, leaks);
          }
        }
        for (JavaField field : api.getFields()) {
          if (isApi(field.getModifiers())) {
            leaked(field.getFullName(), field.getType().getAllInvolvedRawTypes(), leaks);
          }
        }
        for (String leak : leaks) {
          events.add(SimpleConditionEvent.violated(api, api.getName() + ": " + leak));
        }
      }
    };
  }

  private static void leaked(String where, Iterable<JavaClass> types, List<String> leaks) {
    for (JavaClass type : types) {
      if (type.getPackageName().contains(".internal")) {
        leaks.add(where + " names " + type.getName());
      }
    }
  }

  @Test
  void publishedModules_outsideCoreTestkitAndRedis_doNotUseInternal() {
    JavaClasses classes = mainClasses();
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

  @Test
  void publishedModules_publicTypesOutsideInternal_nameNoInternalTypeInTheirApi() {
    JavaClasses classes = mainClasses();
    // Not vacuous: the web modules' API types, which use internal types inside, are checked.
    assertThat(classes.contain("io.slidingwindow.webflux.ReactiveRateLimitFilter")).isTrue();
    assertThat(classes.contain("io.slidingwindow.webmvc.RateLimitInterceptor")).isTrue();

    API_SIGNATURES_NAME_NO_INTERNAL_TYPE.check(classes);
  }

  @Test
  void rule_publicConstructorTakingAnInternalTypeArgument_isReported() {
    JavaClasses fixture = new ClassFileImporter().importClasses(LeakingApi.class);

    EvaluationResult result = API_SIGNATURES_NAME_NO_INTERNAL_TYPE.evaluate(fixture);

    assertThat(result.hasViolation()).isTrue();
    assertThat(result.getFailureReport().toString()).contains(ReactiveKeySource.class.getName());
  }

  @Test
  void webApiPackages_publicTypes_areTheListedOnes() {
    List<String> found =
        mainClasses().stream()
            .filter(
                c ->
                    c.getPackageName().equals("io.slidingwindow.webmvc")
                        || c.getPackageName().equals("io.slidingwindow.webflux"))
            .filter(InternalAccessTest::isVisible)
            .map(JavaClass::getName)
            .toList();

    assertThat(found)
        .as("public types of io.slidingwindow.webmvc and .webflux (API, or move to internal)")
        .containsExactlyInAnyOrderElementsOf(WEB_API);
  }

  /** What the rule forbids: an examples class calling into the core's internals. */
  static final class UsesInternal {
    static Object check(Object value) {
      return io.slidingwindow.internal.Checks.requireNonNull(value, "value");
    }
  }
}
