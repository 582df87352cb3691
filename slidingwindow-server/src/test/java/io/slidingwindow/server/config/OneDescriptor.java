package io.slidingwindow.server.config;

/** One descriptor, from key/value pairs, as {@link Descriptors} for matching in tests. */
@SuppressWarnings("ArrayRecordComponent") // written once in a test, never compared
record OneDescriptor(String... pairs) implements Descriptors {

  @Override
  public int count() {
    return 1;
  }

  @Override
  public int entries(int d) {
    return pairs.length / 2;
  }

  @Override
  public String key(int d, int e) {
    return pairs[2 * e];
  }

  @Override
  public String value(int d, int e) {
    return pairs[2 * e + 1];
  }
}
