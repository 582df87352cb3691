/**
 * The starter's plumbing between its own packages and for the project's other Spring modules (the
 * gateway): the listener every enforcer tells, the in-memory backend, the property checks, the
 * rules in service as the dashboard reads and changes them, the Redis limiters the health indicator
 * counts, and the routers (the gateway's) whose case rules over paths follow. Nothing here is a
 * supported API: names, shapes and behaviour may change in any release.
 */
package io.slidingwindow.spring.boot.internal;
