package io.slidingwindow.spring.method;

import java.lang.reflect.Method;

/**
 * The {@code @RateLimit} declarations whose granted calls, counted at an interface-based proxy that
 * serves them itself, are running on this thread, so that a bean method they reach that carries the
 * same declaration does not count the call again. A Spring Data repository runs the method of a
 * fragment interface on the fragment's implementation, a bean of its own whose method carries the
 * interface's annotation: the call counts once, at the repository. Only the part of a call that
 * runs on the thread that proceeds is seen: the method's body, up to its return (a {@code
 * CompletionStage}, {@code Mono} or {@code Flux} it returns is not followed). Thread-safe: each
 * thread has its own.
 */
final class Nesting {

  /** What a proceeding runs. */
  @FunctionalInterface
  interface Body {
    Object run() throws Throwable;
  }

  /** One running declaration, and those running around it. */
  private record Running(Method declaration, Running outer) {}

  private static final ThreadLocal<Running> RUNNING = new ThreadLocal<>();

  private Nesting() {}

  /** Whether a call counted under {@code declaration} is running on this thread. */
  static boolean inside(Method declaration) {
    for (Running running = RUNNING.get(); running != null; running = running.outer()) {
      if (running.declaration().equals(declaration)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs {@code body}, as a call counted under {@code declaration} unless that is null.
   *
   * @throws Throwable what {@code body} throws
   */
  static Object run(Method declaration, Body body) throws Throwable {
    if (declaration == null) {
      return body.run();
    }
    Running outer = RUNNING.get();
    RUNNING.set(new Running(declaration, outer));
    try {
      return body.run();
    } finally {
      if (outer == null) {
        RUNNING.remove();
      } else {
        RUNNING.set(outer);
      }
    }
  }
}
