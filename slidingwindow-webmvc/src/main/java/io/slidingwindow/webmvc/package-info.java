/**
 * {@link io.slidingwindow.spring.RateLimit} on Spring MVC handler methods ({@link
 * io.slidingwindow.webmvc.RateLimitInterceptor}), over the servlet module's enforcer. Spring MVC
 * and the servlet API are the application's.
 */
package io.slidingwindow.webmvc;
