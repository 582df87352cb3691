/**
 * The starter's web wiring: {@link io.slidingwindow.spring.boot.web.SlidingWindowAutoConfiguration}
 * (servlet applications: the filter, {@code @RateLimit} on Spring MVC) and {@link
 * io.slidingwindow.spring.boot.web.SlidingWindowReactiveAutoConfiguration} (WebFlux: the {@code
 * WebFilter}), both from {@link io.slidingwindow.spring.boot.web.SlidingWindowHttpProperties}
 * ({@code slidingwindow.http.*}), with the in-memory backend, the Micrometer counters ({@link
 * io.slidingwindow.spring.boot.web.MicrometerRateLimitListener}), rules rebuilt on a Spring Cloud
 * refresh ({@link io.slidingwindow.spring.boot.web.SlidingWindowReloadAutoConfiguration}) and the
 * start-up checks of forwarded headers and Reactor Netty. The classes that are not public are the
 * configurations' helpers and may change.
 */
package io.slidingwindow.spring.boot.web;
