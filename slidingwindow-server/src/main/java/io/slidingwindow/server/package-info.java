/**
 * The rate limit service: {@link io.slidingwindow.server.RateLimitServer}, Envoy's rate limit
 * protocol over gRPC and HTTP JSON with sliding windows, in memory or on Redis, with its admin
 * port; {@link io.slidingwindow.server.RateLimitServerMain}, the command line that runs it; {@link
 * io.slidingwindow.server.ConfigException}, a rule file that cannot be used. The sub-packages are
 * the service's own, laid out by job (settings, config, decide, grpc, http, redis, admin), and may
 * change.
 */
package io.slidingwindow.server;
