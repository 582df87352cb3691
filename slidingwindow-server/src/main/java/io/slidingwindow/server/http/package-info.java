/**
 * HTTP on Netty: ports with bounded connections and timeouts, routing, and the decision port's
 * endpoints. Internal to the service: it may change without notice.
 */
package io.slidingwindow.server.http;
