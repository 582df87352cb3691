/**
 * The rate limit service's implementation: configuration, decisions, the gRPC and HTTP front ends
 * and metrics. Everything here may change without notice; use {@link
 * io.slidingwindow.server.RateLimitServer}.
 */
package io.slidingwindow.server.internal;
