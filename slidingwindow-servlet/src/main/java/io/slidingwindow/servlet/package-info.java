/**
 * Sliding-window rate limiting for Jakarta Servlet applications: {@link
 * io.slidingwindow.servlet.RateLimitFilter} applies the rules of a {@link
 * io.slidingwindow.servlet.RateLimitEnforcer} (each an {@link io.slidingwindow.http.HttpRule} with
 * a {@link io.slidingwindow.servlet.KeyResolver}) and answers 429; {@link
 * io.slidingwindow.servlet.ClientIpResolver} finds the client address behind trusted proxies. Free
 * of Spring; the servlet API is the container's.
 */
package io.slidingwindow.servlet;
