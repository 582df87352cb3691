/**
 * The rate limit service's load harness of {@code scripts/bench-server.sh}: requests at a rate,
 * their latencies, and a check that no window granted more than its limit. Never published.
 */
package io.slidingwindow.benchmarks.server;
