/**
 * Sliding-window rate limiting for gRPC servers: {@link
 * io.slidingwindow.grpc.RateLimitServerInterceptor} refuses calls over their rules' limits with
 * {@code RESOURCE_EXHAUSTED} and {@code google.rpc.RetryInfo}.
 */
package io.slidingwindow.grpc;
