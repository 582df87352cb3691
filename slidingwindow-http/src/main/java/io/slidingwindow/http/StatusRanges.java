package io.slidingwindow.http;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The response statuses a rule counts after the fact (see {@link HttpRule#countStatuses()}),
 * written as single statuses and inclusive ranges: {@code 401}, {@code 400-599}.
 *
 * <p>A status is three digits from 100 to 599; a range's first status is at most its last.
 * Immutable and thread-safe.
 */
public final class StatusRanges {

  private static final int LOWEST = 100;
  private static final int HIGHEST = 599;

  private final BitSet statuses;
  private final List<String> written;

  private StatusRanges(BitSet statuses, List<String> written) {
    this.statuses = statuses;
    this.written = written;
  }

  /**
   * Reads {@code entries}, each a status ({@code 401}) or a range ({@code 400-599}), spaces around
   * either ignored.
   *
   * @throws IllegalArgumentException if there is no entry, or one is not a status from 100 to 599
   *     or a range of them from low to high, naming its index and value
   */
  public static StatusRanges parse(List<String> entries) {
    if (entries == null || entries.isEmpty()) {
      throw new IllegalArgumentException(
          "count statuses must list at least one status or range, such as 400-599, was " + entries);
    }
    BitSet statuses = new BitSet(HIGHEST + 1);
    List<String> written = new ArrayList<>();
    for (int i = 0; i < entries.size(); i++) {
      String entry = entries.get(i) == null ? "" : entries.get(i).trim();
      int dash = entry.indexOf('-');
      int low = status(i, entry, dash < 0 ? entry : entry.substring(0, dash).trim());
      int high = dash < 0 ? low : status(i, entry, entry.substring(dash + 1).trim());
      if (high < low) {
        throw bad(i, entry, "a range goes from low to high");
      }
      statuses.set(low, high + 1);
      written.add(low == high ? Integer.toString(low) : low + "-" + high);
    }
    return new StatusRanges(statuses, List.copyOf(written));
  }

  /**
   * As {@link #parse(List)}.
   *
   * @throws IllegalArgumentException as {@link #parse(List)}
   */
  public static StatusRanges parse(String... entries) {
    return parse(entries == null ? null : List.of(entries));
  }

  /** Whether {@code status} is one of these. */
  public boolean contains(int status) {
    return status >= LOWEST && status <= HIGHEST && statuses.get(status);
  }

  /** The entries as written, in order, spaces taken out. */
  public List<String> entries() {
    return written;
  }

  private static int status(int index, String entry, String digits) {
    if (!digits.matches("[0-9]{3}")) {
      throw bad(index, entry, "a status is three digits");
    }
    int status = Integer.parseInt(digits);
    if (status < LOWEST || status > HIGHEST) {
      throw bad(index, entry, "a status is from 100 to 599");
    }
    return status;
  }

  private static IllegalArgumentException bad(int index, String entry, String rule) {
    return new IllegalArgumentException(
        "["
            + index
            + "] must be a status (401) or a range of statuses (400-599); "
            + rule
            + ", was '"
            + entry
            + "'");
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof StatusRanges that && statuses.equals(that.statuses);
  }

  @Override
  public int hashCode() {
    return statuses.hashCode();
  }

  @Override
  public String toString() {
    return written.toString();
  }
}
