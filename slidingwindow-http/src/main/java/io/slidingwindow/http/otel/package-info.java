/**
 * OpenTelemetry for the rate limiting of every web stack: {@link
 * io.slidingwindow.http.otel.OpenTelemetryRateLimitListener}. The OpenTelemetry API is an optional
 * dependency of this module; only this package refers to it.
 */
package io.slidingwindow.http.otel;
