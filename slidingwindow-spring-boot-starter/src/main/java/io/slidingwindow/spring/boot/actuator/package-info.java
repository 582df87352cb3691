/**
 * The starter's actuator wiring: the {@code slidingwindow} health indicator of the limiter's Redis,
 * on Spring Boot 3 ({@link
 * io.slidingwindow.spring.boot.actuator.SlidingWindowRedisHealthIndicator}) and Spring Boot 4
 * ({@link io.slidingwindow.spring.boot.actuator.SlidingWindowRedisHealth4Indicator}), each with its
 * auto-configuration, chosen by which health API is on the class path.
 */
package io.slidingwindow.spring.boot.actuator;
