/**
 * gRPC's greeter with {@code SayHello} limited per client address, and a client that prints each
 * answer. Never published.
 */
package io.slidingwindow.examples.grpc;
