/**
 * Implementation of the limiters and counters. Nothing here is a supported API: names, shapes and
 * behaviour may change in any release.
 */
package io.slidingwindow.internal;
