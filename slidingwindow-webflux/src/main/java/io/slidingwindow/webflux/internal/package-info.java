/**
 * The key language on reactive requests, {@link io.slidingwindow.spring.RateLimit} on WebFlux
 * handler methods, and the making of {@link io.slidingwindow.webflux.ReactiveRateLimitFilter} from
 * them, for the Spring Boot starter. Nothing here is a supported API: names, shapes and behaviour
 * may change in any release.
 */
package io.slidingwindow.webflux.internal;
