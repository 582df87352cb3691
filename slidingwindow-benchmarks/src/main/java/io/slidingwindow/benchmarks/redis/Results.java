package io.slidingwindow.benchmarks.redis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.ToDoubleFunction;

/** BENCHMARK HARNESS support: what one case and one round measured, and summaries over rounds. */
final class Results {

  /** Steal above this share of the machine's CPU time marks a round as not to be trusted. */
  static final double STEAL_FLAG_PERCENT = 5.0;

  private Results() {}

  /**
   * One contender on one workload in one round.
   *
   * @param clientCpuNanos this JVM's CPU time during the measured run, or negative if unknown
   * @param redisCpuNanos redis-server's CPU time during the measured run, or negative if unknown
   * @param serverMicros the {@code usec} of the top-level commands in INFO commandstats
   * @param commands the top-level commands per request, as text
   */
  record Case(
      String workload,
      int round,
      String contender,
      Load.Count count,
      double stealPercent,
      double loadAverage,
      long clientCpuNanos,
      long redisCpuNanos,
      long serverMicros,
      String commands) {

    double perSecond() {
      return count.perSecond();
    }

    double grantedPercent() {
      return 100.0 * count.granted() / count.requests();
    }

    double clientCpuMicrosPerRequest() {
      return clientCpuNanos < 0 ? Double.NaN : clientCpuNanos / 1e3 / count.requests();
    }

    double redisCpuMicrosPerRequest() {
      return redisCpuNanos < 0 ? Double.NaN : redisCpuNanos / 1e3 / count.requests();
    }

    double serverMicrosPerRequest() {
      return serverMicros / (double) count.requests();
    }

    /**
     * Requests decided per second of redis-server CPU; infinite when redis-server spent less than
     * one clock tick (a refusal answered by the client).
     */
    double decisionsPerRedisCoreSecond() {
      if (redisCpuNanos < 0) {
        return Double.NaN;
      }
      if (redisCpuNanos == 0) {
        return Double.POSITIVE_INFINITY;
      }
      return count.requests() / (redisCpuNanos / 1e9);
    }
  }

  /** One round of one workload: every contender once, in {@code order}. */
  record Round(String workload, int round, List<String> order, double stealPercent, double load) {
    boolean flagged() {
      return stealPercent > STEAL_FLAG_PERCENT;
    }
  }

  /** Median, smallest and largest of some figures. */
  record Spread(double median, double min, double max) {

    static Optional<Spread> of(List<Double> values) {
      List<Double> sorted = new ArrayList<>();
      for (double v : values) {
        if (!Double.isNaN(v)) {
          sorted.add(v);
        }
      }
      if (sorted.isEmpty()) {
        return Optional.empty();
      }
      Collections.sort(sorted);
      int n = sorted.size();
      double median =
          n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
      return Optional.of(new Spread(median, sorted.get(0), sorted.get(n - 1)));
    }

    /** {@code median (min, max)}, each formatted with {@code format}. */
    String text(java.util.function.DoubleFunction<String> format) {
      return format.apply(median) + " (" + format.apply(min) + ", " + format.apply(max) + ")";
    }
  }

  /** The cases of {@code contender} on {@code workload}, in round order. */
  static List<Case> of(List<Case> cases, String workload, String contender) {
    List<Case> found = new ArrayList<>();
    for (Case c : cases) {
      if (c.workload().equals(workload) && c.contender().equals(contender)) {
        found.add(c);
      }
    }
    found.sort((a, b) -> Integer.compare(a.round(), b.round()));
    return found;
  }

  /** The spread over rounds of {@code figure} for one contender on one workload. */
  static Optional<Spread> spread(
      List<Case> cases, String workload, String contender, ToDoubleFunction<Case> figure) {
    List<Double> values = new ArrayList<>();
    for (Case c : of(cases, workload, contender)) {
      values.add(figure.applyAsDouble(c));
    }
    return Spread.of(values);
  }

  /** The spread of the per-round ratios {@code a / b} of throughput on one workload. */
  static Optional<Spread> ratio(List<Case> cases, String workload, String a, String b) {
    List<Double> ratios = new ArrayList<>();
    for (Case x : of(cases, workload, a)) {
      for (Case y : of(cases, workload, b)) {
        if (x.round() == y.round()) {
          ratios.add(x.perSecond() / y.perSecond());
        }
      }
    }
    return Spread.of(ratios);
  }

  /** A whole number with spaces between groups of three digits; "∞" and "n/a" where due. */
  static String whole(double value) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    if (Double.isInfinite(value)) {
      return "∞";
    }
    return String.format(Locale.ROOT, "%,.0f", value).replace(',', ' ');
  }

  /** Two significant decimals for ratios, one for microseconds and percents. */
  static String decimals(double value, int places) {
    if (Double.isNaN(value)) {
      return "n/a";
    }
    if (Double.isInfinite(value)) {
      return "∞";
    }
    return String.format(Locale.ROOT, "%." + places + "f", value);
  }
}
