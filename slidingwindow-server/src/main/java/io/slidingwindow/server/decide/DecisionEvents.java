package io.slidingwindow.server.decide;

import io.slidingwindow.server.decide.Decisions.Verdict;

/**
 * Hears what the front ends (gRPC, HTTP) did with each request: for metrics and the dashboard.
 * Called on the thread that answered, possibly an event loop, so it must not block. Thread-safe.
 */
public interface DecisionEvents {

  /** The transport a request came by: a metric tag. */
  String GRPC = "grpc";

  /** The transport a request came by: a metric tag. */
  String HTTP = "http";

  /** A request was decided in {@code nanos}. */
  void decided(String transport, DecisionRequest request, Verdict verdict, long nanos);

  /** A request was refused for {@code reason}, a word from a small set (a metric tag). */
  void refused(String transport, String reason);
}
