/**
 * Sliding-window limits for Spring Cloud Gateway's {@code RequestRateLimiter} filter: {@link
 * io.slidingwindow.gateway.SlidingWindowRateLimiter}, in memory or on Redis, deciding through
 * {@code KeyedRateLimiter.decideAsync}; {@link io.slidingwindow.gateway.GatewayKeys}, the routes'
 * key resolvers; {@link io.slidingwindow.gateway.SlidingWindowGatewayProperties} ({@code
 * slidingwindow.gateway.*}). The classes that are not public are implementation and may change.
 */
package io.slidingwindow.gateway;
