package io.slidingwindow.grpc;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;

/**
 * What the rules' keys read of one call, captured when it starts, so that a key found on another
 * thread (after an earlier rule's remote decision) sees the same call, metadata and context.
 */
record CallRequest(ServerCall<?, ?> call, Metadata headers, Context context) {}
