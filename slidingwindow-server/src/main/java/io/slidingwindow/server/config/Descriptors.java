package io.slidingwindow.server.config;

/**
 * The descriptors of one request, read by index, so that matching them against the configuration
 * copies nothing. Implemented over each transport's own request (a protobuf message, parsed JSON).
 */
public interface Descriptors {

  /** The number of descriptors. */
  int count();

  /** The number of entries of descriptor {@code d}. */
  int entries(int d);

  /** The key of entry {@code e} of descriptor {@code d}. */
  String key(int d, int e);

  /** The value of entry {@code e} of descriptor {@code d}. */
  String value(int d, int e);
}
