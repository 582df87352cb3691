/**
 * The restricted key language (SpEL over {@link io.slidingwindow.spring.RateLimitKeyContext}) and
 * the register of {@link io.slidingwindow.spring.RateLimit} rules, for the project's Spring
 * modules. Nothing here is a supported API: names, shapes and behaviour may change in any release.
 */
package io.slidingwindow.spring.internal;
