/**
 * The starter's dashboard wiring: the {@code slidingwindow} actuator endpoint ({@link
 * io.slidingwindow.spring.dashboard.SlidingWindowEndpoint}), the page that draws it ({@link
 * io.slidingwindow.spring.dashboard.SlidingWindowPageWebExtension}) and the listener that records
 * the decisions it shows ({@link io.slidingwindow.spring.dashboard.DashboardRateLimitListener}),
 * configured by {@link io.slidingwindow.spring.dashboard.SlidingWindowEndpointAutoConfiguration};
 * and the filter that keeps web pages from the endpoint's write operations, configured in the
 * context of the management endpoints by {@link
 * io.slidingwindow.spring.dashboard.SlidingWindowEndpointManagementConfiguration}.
 */
package io.slidingwindow.spring.dashboard;
