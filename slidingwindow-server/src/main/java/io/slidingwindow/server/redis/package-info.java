/**
 * Counting on Redis: the connection to a standalone server, a Sentinel-watched master or a Cluster,
 * the rules' limiters and their failure policies, and the probe that tells readiness. The only
 * package of the service that uses the Redis client. Internal to the service: it may change without
 * notice.
 */
package io.slidingwindow.server.redis;
