/**
 * {@link io.slidingwindow.spring.RateLimit} on any Spring bean method, and on the interface methods
 * of Spring Data repositories: {@link io.slidingwindow.spring.method.RateLimitMethodPostProcessor}
 * advises the beans whose methods carry it, deciding each call before the method runs, with a
 * fallback method for refused calls.
 */
package io.slidingwindow.spring.method;
