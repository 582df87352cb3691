/**
 * The starter's web wiring: {@link io.slidingwindow.spring.boot.web.SlidingWindowAutoConfiguration}
 * (servlet applications: the filter, {@code @RateLimit} on Spring MVC) and {@link
 * io.slidingwindow.spring.boot.web.SlidingWindowReactiveAutoConfiguration} (WebFlux: the {@code
 * WebFilter}), both from {@link io.slidingwindow.spring.boot.web.SlidingWindowHttpProperties}
 * ({@code slidingwindow.http.*}), with the in-memory backend, the Micrometer counters ({@link
 * io.slidingwindow.spring.boot.web.MicrometerRateLimitListener}), rules rebuilt on a Spring Cloud
 * refresh ({@link io.slidingwindow.spring.boot.web.SlidingWindowReloadAutoConfiguration}) and the
 * start-up checks of forwarded headers and Reactor Netty. The public classes are for applications:
 * the configurations (to name in {@code spring.autoconfigure.exclude}), the property classes
 * (including {@link io.slidingwindow.spring.boot.web.RefusalProperties}, and {@link
 * io.slidingwindow.spring.boot.web.PlanProperties} and {@link
 * io.slidingwindow.spring.boot.web.RulePlanProperties}, which the gateway's route configuration
 * binds too) and the Micrometer listener. The classes that are not public are the configurations'
 * helpers and may change; what the starter's packages and the gateway share is in {@code
 * io.slidingwindow.spring.boot.internal}, which may change too.
 */
package io.slidingwindow.spring.boot.web;
