/**
 * JMH benchmarks of the in-process limiters (beside Bucket4j, Guava, Resilience4j, Sentinel and
 * Hystrix), rolling statistics and path matching, and measurements of memory. Never published.
 */
package io.slidingwindow.benchmarks;
