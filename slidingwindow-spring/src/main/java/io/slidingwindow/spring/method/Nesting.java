package io.slidingwindow.spring.method;

import java.lang.reflect.Method;

/**
 * The {@code @RateLimit} declarations whose granted calls, counted at an interface-based proxy that
 * serves them itself, are running on this thread, each with the post-processor that counted it, so
 * that a bean method they reach that carries the same declaration is not counted again by that
 * post-processor. A Spring Data repository runs the method of a fragment interface on the
 * fragment's implementation, a bean of its own whose method carries the interface's annotation: the
 * call counts once, at the repository. A call counted by another post-processor (another
 * application context's) is counted again by this one's own rule, as it would be were that
 * post-processor's proxy not an interface-based one. Only the part of a call that runs on the
 * thread that proceeds is seen: the method's body, up to its return (a {@code CompletionStage},
 * {@code Mono} or {@code Flux} it returns is not followed). Thread-safe: each thread has its own.
 */
final class Nesting {

  /** What a proceeding runs. */
  @FunctionalInterface
  interface Body {
    Object run() throws Throwable;
  }

  /** A call counted by the post-processor {@code owner} under {@code declaration}. */
  record Mark(Object owner, Method declaration) {}

  /** One running mark, and those running around it. */
  private record Running(Mark mark, Running outer) {}

  private static final ThreadLocal<Running> RUNNING = new ThreadLocal<>();

  private Nesting() {}

  /**
   * Whether a call counted by the post-processor {@code owner} under {@code declaration} is running
   * on this thread.
   */
  static boolean inside(Object owner, Method declaration) {
    for (Running running = RUNNING.get(); running != null; running = running.outer()) {
      if (running.mark().owner() == owner && running.mark().declaration().equals(declaration)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Runs {@code body}, as a call counted as {@code mark} says unless that is null.
   *
   * @throws Throwable what {@code body} throws
   */
  static Object run(Mark mark, Body body) throws Throwable {
    if (mark == null) {
      return body.run();
    }
    Running outer = RUNNING.get();
    RUNNING.set(new Running(mark, outer));
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
