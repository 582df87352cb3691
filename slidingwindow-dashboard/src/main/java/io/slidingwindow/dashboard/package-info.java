/**
 * The live dashboard's data, shared by the rate limit service and the Spring Boot starter: {@link
 * io.slidingwindow.dashboard.DecisionRecorder} keeps recent decisions in bounded memory, {@link
 * io.slidingwindow.dashboard.DashboardFeed} turns them and a configuration into the feed the
 * dashboard page polls.
 *
 * <p>Not API: these types are the plumbing the two share, and may change in any release. An
 * application reaches the dashboard through the service's admin port or the starter's actuator
 * endpoint.
 */
package io.slidingwindow.dashboard;
