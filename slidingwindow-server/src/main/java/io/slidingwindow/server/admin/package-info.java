/**
 * The admin port: Prometheus metrics, statistics, the loaded configuration and the dashboard,
 * behind a bearer token when one is set; and the metrics every decision feeds. Internal to the
 * service: it may change without notice.
 */
package io.slidingwindow.server.admin;
