package io.slidingwindow.server.decide;

import java.util.List;

/**
 * One descriptor of a domain, named by its entries, as the admin port's overrides and quota
 * operations take it; read as a request of that one descriptor and one hit. Two are equal when
 * their domains and entries, in order, are. Immutable.
 *
 * @param domain the configuration domain
 * @param entries the descriptor's entries, in order
 */
public record DescriptorKey(String domain, List<Entry> entries) implements DecisionRequest {

  /** One entry of a descriptor: a key and its value. */
  public record Entry(String key, String value) {}

  /**
   * Copies {@code entries}.
   *
   * @throws NullPointerException if {@code entries} is or holds null
   */
  public DescriptorKey {
    entries = List.copyOf(entries);
  }

  @Override
  public long hits() {
    return 1;
  }

  @Override
  public int count() {
    return 1;
  }

  @Override
  public int entries(int d) {
    return entries.size();
  }

  @Override
  public String key(int d, int e) {
    return entries.get(e).key();
  }

  @Override
  public String value(int d, int e) {
    return entries.get(e).value();
  }

  @Override
  public long hits(int d) {
    return -1;
  }
}
