package io.slidingwindow.jaxrs;

import jakarta.annotation.Priority;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.PreMatching;
import jakarta.ws.rs.core.Response;
import java.lang.System.Logger.Level;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What {@link RateLimitFeature} does with a bad {@link RateLimit} that it finds only once the
 * application serves requests: on a class that a sub-resource locator hands over without declaring
 * it (a locator declared to return {@code Object}, or an interface or abstract class the class
 * implements), whose methods the runtime configures at the first request that reaches them. A
 * failure then can no longer stop the start; thrown, it would answer each request through the
 * locator with a stack trace in the log (Jersey) or the message in the body (RESTEasy), and be
 * checked anew on each. Instead the failure is logged once, naming the method and what to do, and
 * the methods it concerns get a filter that answers every request with one plain 500, before any
 * other filter runs: nothing reaches a method whose limit cannot be applied. Thread-safe.
 */
final class LateCheck {

  private static final System.Logger LOG = System.getLogger(RateLimitFeature.class.getName());

  private static final String BODY =
      "{\"type\":\"about:blank\",\"title\":\"Internal Server Error\",\"status\":500}";

  private final Set<String> logged = ConcurrentHashMap.newKeySet();
  private final Serving serving = new Serving();
  private final Unusable unusable = new Unusable();

  /**
   * The filter to register with the application: it notes that the application serves requests,
   * from the first one on.
   */
  ContainerRequestFilter servingMark() {
    return serving;
  }

  /**
   * Logs {@code failure}, found when the runtime configured {@code what} (a method, or the methods
   * of a class) after the application served its first request, once, and returns the filter that
   * answers the requests to {@code what} with 500.
   *
   * @throws IllegalArgumentException {@code failure}, while the application starts (before its
   *     first request), so that it stops the start
   */
  ContainerRequestFilter unusable(IllegalArgumentException failure, String what) {
    if (!serving.seen) {
      throw failure;
    }
    String message = failure.getMessage();
    if (logged.add(message)) {
      LOG.log(
          Level.ERROR,
          message
              + ". Found after the application started, when a request first reached "
              + what
              + " through a sub-resource locator whose declared return type (Object, or an"
              + " interface or abstract class) the start-up check cannot follow, so it cannot stop"
              + " the start: every request to "
              + what
              + " is answered 500 until it is fixed. Fix the annotation, and declare the locator's"
              + " return type as the class it returns, so that it is checked when the application"
              + " starts.");
    }
    return unusable;
  }

  /** Notes the first request; does nothing else. */
  @PreMatching
  @Priority(Integer.MIN_VALUE)
  static final class Serving implements ContainerRequestFilter {
    private volatile boolean seen;

    @Override
    public void filter(ContainerRequestContext request) {
      if (!seen) {
        seen = true;
      }
    }
  }

  /** Answers 500, naming nothing, before any other filter bound to the method. */
  @Priority(Integer.MIN_VALUE)
  static final class Unusable implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      request.abortWith(
          Response.status(Response.Status.INTERNAL_SERVER_ERROR)
              .type("application/problem+json;charset=UTF-8")
              .entity(BODY)
              .build());
    }
  }
}
