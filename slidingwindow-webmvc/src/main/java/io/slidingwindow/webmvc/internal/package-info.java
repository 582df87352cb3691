/**
 * The key language on servlet requests, for the project's Spring modules ({@link
 * io.slidingwindow.webmvc.RateLimitInterceptor} and the Spring Boot starter's rules), and the
 * interceptor's start-up wiring, for the starter. Nothing here is a supported API: names, shapes
 * and behaviour may change in any release.
 */
package io.slidingwindow.webmvc.internal;
