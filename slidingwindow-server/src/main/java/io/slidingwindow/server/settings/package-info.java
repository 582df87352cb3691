/**
 * The rate limit service's settings: the table of options with their defaults, the builder that
 * checks them, and the reader of arguments, system properties and the environment. Internal to the
 * service: it may change without notice; use {@link io.slidingwindow.server.RateLimitServer}.
 */
package io.slidingwindow.server.settings;
