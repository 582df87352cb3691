/**
 * Sliding-window rate limiting for Spring WebFlux applications, without blocking: {@link
 * io.slidingwindow.webflux.ReactiveRateLimitFilter}, a {@code WebFilter} that applies rules over
 * paths and {@link io.slidingwindow.spring.RateLimit} on annotated controllers ({@link
 * io.slidingwindow.webflux.ReactiveRateLimitAnnotations}) through the same enforcement core as the
 * servlet filter. {@link io.slidingwindow.webflux.ReactiveKeyResolver} is the key of a {@code
 * bean:NAME} rule, {@link io.slidingwindow.webflux.ReactiveClientKeys} the client address of a
 * reactive request, also for Spring Cloud Gateway's routes; {@link
 * io.slidingwindow.webflux.ReactiveKeys} and {@link io.slidingwindow.webflux.ReactiveKeySource} put
 * the key language on reactive requests. Spring WebFlux is the application's.
 */
package io.slidingwindow.webflux;
