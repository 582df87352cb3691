package io.slidingwindow.jaxrs;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Limits a JAX-RS resource method: at most {@code permits} calls in any interval of length {@code
 * window}, for each key, for every limit listed. Takes effect where a {@link RateLimitFeature} is
 * registered.
 *
 * <pre>{@code
 * @GET
 * @Path("/orders/{id}")
 * @RateLimit(limits = {"5/1s", "100/1m"}, key = "header:X-Api-Key")
 * public Order order(@PathParam("id") String id) { ... }
 * }</pre>
 *
 * <p>Each limit is {@code PERMITS/WINDOW} ({@code 500ms}, {@code 2s}, {@code 1m}, {@code 1h},
 * {@code PT30S}). The key is {@code ip} (the client address, the default), {@code principal} (the
 * authenticated user, else the client address), {@code header:NAME} (the header's value, else the
 * client address), {@code global} (one window for every caller), or {@code resolver:NAME} (a {@link
 * JaxrsKeyResolver} given to the feature under that name). Limits and keys are checked when the
 * application starts. Refusals are answered as the filter's are (429, {@code Retry-After}, problem
 * body).
 *
 * <p>It may sit on the resource method or on the same method of a superclass or an interface that
 * the resource class implements, as JAX-RS annotations may: the nearest declaration wins (the
 * method's own, then its superclass's, recursively, then its interfaces', in declaration order): an
 * override without it, a container's proxy or a subclass of the application's own, keeps the limit,
 * and only an annotation of its own changes it. It limits resource methods only (those with
 * {@code @GET}, {@code @POST}, ...): on a sub-resource locator or any other method it would limit
 * nothing, and {@link RateLimitFeature} refuses it.
 */
@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface RateLimit {

  /** The limits, each {@code PERMITS/WINDOW}, such as {@code "500/2s"}; at least one. */
  String[] limits();

  /**
   * The key: {@code ip}, {@code principal}, {@code header:NAME}, {@code global}, {@code
   * resolver:NAME}.
   */
  String key() default "ip";

  /**
   * The rule name in metrics and headers; by default {@code SimpleClassName.methodName} of the
   * class that declares the method the runtime calls (the implementation, for an annotation on an
   * interface; the user's class, for a proxy subclass that a container generated). Names must be
   * unique among the annotated methods of one feature.
   */
  String name() default "";

  /** Whether refused calls are counted too (penalty mode). */
  boolean countRefusedAttempts() default false;

  /** Count and report, never refuse. */
  boolean dryRun() default false;
}
