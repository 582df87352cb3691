/**
 * {@link io.slidingwindow.spring.RateLimit} on Spring MVC handler methods ({@link
 * io.slidingwindow.webmvc.RateLimitInterceptor}) and the key language on servlet requests ({@link
 * io.slidingwindow.webmvc.ServletKeys}), over the servlet module's enforcer. Spring MVC and the
 * servlet API are the application's.
 */
package io.slidingwindow.webmvc;
