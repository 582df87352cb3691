/**
 * The key language on servlet requests, for the project's Spring modules: {@link
 * io.slidingwindow.webmvc.RateLimitInterceptor} and the Spring Boot starter's rules. Nothing here
 * is a supported API: names, shapes and behaviour may change in any release.
 */
package io.slidingwindow.webmvc.internal;
