package io.slidingwindow;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;

/**
 * Writes Lincheck scenarios by hand, for the races a model-checking test must always try, besides
 * the random scenarios it generates: {@code scenario(initial, threads..., post)} with each part a
 * list of {@link #op} calls.
 */
public final class ModelScenarios {

  private final Class<?> testClass;

  private ModelScenarios(Class<?> testClass) {
    this.testClass = testClass;
  }

  /** Scenarios of the operations of {@code testClass}, each named by its method's name. */
  public static ModelScenarios of(Class<?> testClass) {
    return new ModelScenarios(testClass);
  }

  /** A call of the operation {@code name} with {@code arguments}. */
  public Actor op(String name, Object... arguments) {
    Method found = null;
    for (Method method : testClass.getMethods()) {
      if (method.getName().equals(name)) {
        if (found != null) {
          throw new IllegalArgumentException("operation name " + name + " is not unique");
        }
        found = method;
      }
    }
    if (found == null) {
      throw new IllegalArgumentException("no operation " + name + " in " + testClass);
    }
    return new Actor(found, Arrays.asList(arguments));
  }

  /** A list of calls, for one part of a scenario. */
  public static List<Actor> calls(Actor... calls) {
    return List.of(calls);
  }

  /** {@code initial} on one thread, then {@code threads} in parallel, then {@code post}. */
  @SafeVarargs
  public static ExecutionScenario scenario(
      List<Actor> initial, List<Actor> post, List<Actor>... threads) {
    List<List<Actor>> parallel = new ArrayList<>();
    for (List<Actor> thread : threads) {
      parallel.add(thread);
    }
    return new ExecutionScenario(initial, parallel, post, null);
  }
}
