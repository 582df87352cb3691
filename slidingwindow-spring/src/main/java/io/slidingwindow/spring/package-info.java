/**
 * What Spring MVC and Spring WebFlux applications share: {@link io.slidingwindow.spring.RateLimit}
 * on handler methods, and {@link io.slidingwindow.spring.RateLimitKeyContext}, what a key
 * expression, condition or cost reads of a request. {@code slidingwindow-webmvc} and {@code
 * slidingwindow-webflux} enforce them; the Spring Boot starter wires both.
 */
package io.slidingwindow.spring;
