/**
 * The live dashboard's data, shared by the rate limit service and the Spring Boot starter: {@link
 * io.slidingwindow.dashboard.DecisionRecorder} keeps recent decisions in bounded memory, {@link
 * io.slidingwindow.dashboard.DashboardFeed} turns them and a configuration into the feed the
 * dashboard page polls.
 */
package io.slidingwindow.dashboard;
