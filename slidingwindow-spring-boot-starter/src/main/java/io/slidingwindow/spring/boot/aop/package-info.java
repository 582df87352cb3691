/**
 * The starter's wiring of {@code @RateLimit} on any bean method: {@link
 * io.slidingwindow.spring.boot.aop.SlidingWindowAopAutoConfiguration} (on unless {@code
 * slidingwindow.aop.enabled} is false), on the backend the starter chose.
 */
package io.slidingwindow.spring.boot.aop;
