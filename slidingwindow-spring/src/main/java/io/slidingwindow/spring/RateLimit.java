package io.slidingwindow.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits a Spring MVC or WebFlux handler method, or any other Spring bean's method: at most {@code
 * permits} calls in any interval of length {@code window}, for each key, for every limit listed.
 *
 * <p>On a bean method that is not a web request handler (any method but a {@code @RequestMapping}
 * or {@code @HttpExchange} method of a {@code @Controller}), the call is decided before the method
 * runs: a refused call runs the {@link #fallbackMethod()}, or else ends in a {@link
 * RateLimitExceededException} (thrown, or the error of the returned {@code CompletionStage}, {@code
 * Mono} or {@code Flux}, decided at call or subscription time without blocking). Its key is {@code
 * global} (the default) or an expression over the method's arguments ({@code #order.customerId},
 * {@code #p0}, {@code key(#tenant, #region)}); an expression that throws or gives null counts the
 * call under the rule's {@code global} key. The Spring Boot starter applies it; see {@code
 * docs/spring.md}.
 *
 * <pre>{@code
 * @GetMapping("/orders/{id}")
 * @RateLimit(limits = {"5/1s", "100/1m"}, key = "key(pathVariables['id'], clientIp)")
 * Order order(@PathVariable String id) { ... }
 * }</pre>
 *
 * <p>Each limit is {@code PERMITS/WINDOW} as {@link io.slidingwindow.Limit#parse} reads it, the
 * window a whole number with a unit ({@code 500ms}, {@code 2s}, {@code 1m}, {@code 1h}, {@code 1d})
 * or ISO-8601 ({@code PT30S}). The key is written as a rule's key in {@code application.yml}: a
 * shorthand ({@code ip}, {@code principal}, {@code header:NAME}, {@code global}, {@code bean:NAME})
 * or a SpEL expression evaluated against the request before the handler runs, in a restricted
 * context (read-only properties, the root's methods and pure methods of text); see {@link
 * RateLimitKeyContext} for what it can read. Its sources ({@code clientIp}, {@code header('X')},
 * {@code principal}) are typed keys that never share a bucket, and a plain-text result has a
 * namespace of its own, so a header value cannot spell an address. An empty key means the client
 * address. A key that evaluates to null, or throws, counts the request under its client address.
 * Limits and expressions, with the names and methods they use, are checked at start-up. Refusals
 * are answered as the filter's are (429, {@code Retry-After}, problem body).
 *
 * <p>A client chooses its headers: keying on one gives each value sent a quota of its own. Key on a
 * value the application has checked (a {@code bean:NAME} resolver that knows the valid API keys, or
 * the authenticated {@code principal}) and fall back to the client address otherwise.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RateLimit {

  /** The limits, each {@code PERMITS/WINDOW}, such as {@code "500/2s"}; at least one. */
  String[] limits();

  /** The key: a shorthand or a SpEL expression; empty for the client address. */
  String key() default "";

  /**
   * The rule name in metrics and headers; by default {@code SimpleClassName.methodName}. Names must
   * be unique among the filter's rules and every annotation: two that collide (overloads, or
   * same-named classes in different packages) stop start-up, naming both. On bean methods, a name
   * given here is one rule for every method that has this annotation (an interface's method, in
   * each bean that implements it; a repository fragment's, at the repository and at its
   * implementation), counted together. A name that starts with {@code gateway.} stops start-up too:
   * those are the Spring Cloud Gateway routes' names.
   */
  String name() default "";

  /**
   * On a bean method (not a web handler), the method of the same bean that answers a refused call
   * in its place: the same parameters followed by a {@link RateLimitExceededException} (or a
   * supertype of it), returning what the method returns. Empty for none. Checked at start-up; on a
   * method that the bean's class does not implement (a Spring Data repository's query), it stops
   * start-up, as there is no class of the application's to hold it.
   */
  String fallbackMethod() default "";

  /** Whether refused calls are counted too (penalty mode). */
  boolean countRefusedAttempts() default false;

  /** Count and report, never refuse. */
  boolean dryRun() default false;

  /**
   * On a web handler, the statuses of the answers that count, each a status ({@code "401"}) or a
   * range ({@code "400-599"}); empty, the default, counts every request let through. A request
   * reserves its permits before the handler runs (refused when they do not fit, as always) and gets
   * them back once its answer's status, the server's own after error handling (500 for an exception
   * nothing handled), is not one of these. Checked at start-up; not for bean methods, which use
   * {@link #countOn()}.
   */
  String[] countStatuses() default {};

  /**
   * On a bean method (not a web handler), the exceptions that make a call count: a call reserves
   * its permits before the method runs (refused when they do not fit, as always) and gets them back
   * if it returns normally or fails with anything that is none of these (or a subclass); for a
   * {@code CompletionStage}, {@code Mono} or {@code Flux}, if it completes without such an error (a
   * subscription cancelled before its end keeps them). Empty, the default, counts every call let
   * through. Not for web handlers, which use {@link #countStatuses()}, nor for a method whose call
   * ends after it returns (a {@code Future} that is not a {@code CompletableFuture}, a Kotlin
   * {@code suspend} function, an {@code @Async} method): either stops start-up.
   */
  Class<? extends Throwable>[] countOn() default {};
}
