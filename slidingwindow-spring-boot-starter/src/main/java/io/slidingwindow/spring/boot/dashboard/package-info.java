/**
 * The starter's dashboard wiring: the {@code slidingwindow} actuator endpoint ({@link
 * io.slidingwindow.spring.boot.dashboard.SlidingWindowEndpoint}), the page that draws it ({@link
 * io.slidingwindow.spring.boot.dashboard.SlidingWindowPageWebExtension}) and the listener that
 * records the decisions it shows ({@link
 * io.slidingwindow.spring.boot.dashboard.DashboardRateLimitListener}), configured by {@link
 * io.slidingwindow.spring.boot.dashboard.SlidingWindowEndpointAutoConfiguration}; and the filter
 * that keeps web pages from the endpoint's writes and its reads of keys, configured in the context
 * of the management endpoints by {@link
 * io.slidingwindow.spring.boot.dashboard.SlidingWindowEndpointManagementConfiguration}. The
 * endpoint, its page and the listener are beans an application may inject or replace with its own
 * of the same type; the classes that are not public (the quota and plan operations, the filter) are
 * their helpers and may change.
 */
package io.slidingwindow.spring.boot.dashboard;
