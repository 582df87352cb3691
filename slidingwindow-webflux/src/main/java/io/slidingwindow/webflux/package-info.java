/**
 * Sliding-window rate limiting for Spring WebFlux applications, without blocking: {@link
 * io.slidingwindow.webflux.ReactiveRateLimitFilter}, a {@code WebFilter} that applies rules over
 * paths (and, as the Spring Boot starter sets it up, {@link io.slidingwindow.spring.RateLimit} on
 * annotated controllers) through the same enforcement core as the servlet filter. {@link
 * io.slidingwindow.webflux.ReactiveKeyResolver} chooses a rule's key, {@link
 * io.slidingwindow.webflux.ReactiveClientKeys} finds the client address of a reactive request, also
 * for Spring Cloud Gateway's routes. Spring WebFlux is the application's.
 */
package io.slidingwindow.webflux;
