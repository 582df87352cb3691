/**
 * The gRPC port: Envoy's rate limit service, health and reflection, on the event loop. Internal to
 * the service: it may change without notice.
 */
package io.slidingwindow.server.grpc;
