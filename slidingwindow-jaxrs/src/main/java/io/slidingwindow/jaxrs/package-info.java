/**
 * Sliding-window rate limiting for JAX-RS (Jakarta RESTful Web Services) applications, on any
 * implementation (Jersey, RESTEasy): {@link io.slidingwindow.jaxrs.RateLimitFilter} for rules over
 * paths, {@link io.slidingwindow.jaxrs.RateLimit} with {@link
 * io.slidingwindow.jaxrs.RateLimitFeature} for resource methods. Refusals are 429 with {@code
 * Retry-After} and, when turned on, the draft-10 {@code RateLimit} headers, as the servlet filter
 * answers them.
 */
package io.slidingwindow.jaxrs;
