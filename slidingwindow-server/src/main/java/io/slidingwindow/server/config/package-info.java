/**
 * The rate limit rules: envoyproxy/ratelimit's YAML read into descriptor trees, and the watcher
 * that reloads them when the files change. Internal to the service: it may change without notice.
 */
package io.slidingwindow.server.config;
