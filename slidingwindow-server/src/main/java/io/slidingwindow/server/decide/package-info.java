/**
 * Deciding requests: the rules' limiters, the ids descriptors are counted under, the bounds a
 * request must keep, the limits descriptors carry themselves, and the store counts live in.
 * Internal to the service: it may change without notice.
 */
package io.slidingwindow.server.decide;
