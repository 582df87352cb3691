package io.slidingwindow.dashboard;

import io.slidingwindow.Limit;
import io.slidingwindow.dashboard.DecisionRecorder.Series;
import io.slidingwindow.dashboard.DecisionRecorder.Snapshot;
import io.slidingwindow.dashboard.DecisionRecorder.TopKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The dashboard's feed: one document that the dashboard page polls, the same for the rate limit
 * service ({@code GET /v1/dashboard}) and for an application's actuator endpoint ({@code
 * /actuator/slidingwindow}). Its fields:
 *
 * <ul>
 *   <li>{@code seconds}: the seconds covered, since the epoch, oldest first; the last one is still
 *       counting;
 *   <li>{@code domains} and {@code rules}: per domain (and per rule, with its {@code rule} name)
 *       the arrays {@code decisions}, {@code refusals} and {@code dryRunRefusals}, one count per
 *       second, aligned with {@code seconds};
 *   <li>{@code topWindowSeconds} and {@code topRefused}: the keys refused most over that many
 *       seconds, each with its {@code domain}, {@code rule}, {@code descriptor} (the key) and
 *       {@code refusals};
 *   <li>{@code config}: where the rules come from ({@code path}, {@code lastReloadError}) and per
 *       domain its {@code rules}, each with {@code rule}, {@code name}, {@code limits} (as text),
 *       {@code shadowMode} and {@code source};
 *   <li>{@code backend}: where the counts live, {@code {"backend": "memory"}} for example.
 * </ul>
 *
 * <p>{@link #of} builds it as a tree of ordered maps, lists, {@code long[]} and plain values, which
 * any JSON writer (the actuator's) writes as is; {@link #toJson} writes it without one. Instances
 * of the nested records are immutable.
 */
public final class DashboardFeed {

  private DashboardFeed() {}

  /**
   * One rule of the configuration.
   *
   * @param rule what identifies the rule in the series and the refused keys
   * @param name a name for people, possibly the same
   * @param limits its limits as text, for example {@code "5 per 10s, 100 per 90s"}
   * @param shadowMode whether it only reports (dry-run, shadow mode)
   * @param source where it is defined or what it applies to
   */
  public record Rule(String rule, String name, String limits, boolean shadowMode, String source) {}

  /**
   * The rules of one domain.
   *
   * @param domain the domain
   * @param rules its rules, in the order shown
   */
  public record Domain(String domain, List<Rule> rules) {
    /** Copies {@code rules}. */
    public Domain {
      rules = List.copyOf(rules);
    }
  }

  /**
   * The configuration shown.
   *
   * @param path where it was read from, for people
   * @param lastReloadError why the last reload failed, or null
   * @param domains the domains and their rules
   */
  public record Configuration(String path, String lastReloadError, List<Domain> domains) {
    /** Copies {@code domains}. */
    public Configuration {
      domains = List.copyOf(domains);
    }
  }

  /**
   * The feed of {@code snapshot}, {@code configuration} and {@code backend}.
   *
   * @param backend the backend's health: {@code "backend"} then any further fields, values being
   *     strings, numbers or booleans
   */
  public static Map<String, Object> of(
      Snapshot snapshot, Configuration configuration, Map<String, ?> backend) {
    Map<String, Object> feed = new LinkedHashMap<>();
    feed.put("seconds", snapshot.seconds());
    List<Object> domains = new ArrayList<>();
    for (Series series : snapshot.domains()) {
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("domain", series.domain());
      domains.add(series(node, series));
    }
    feed.put("domains", domains);
    List<Object> rules = new ArrayList<>();
    for (Series series : snapshot.rules()) {
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("domain", series.domain());
      node.put("rule", series.rule());
      rules.add(series(node, series));
    }
    feed.put("rules", rules);
    feed.put("topWindowSeconds", DecisionRecorder.TOP_WINDOW_SECONDS);
    List<Object> top = new ArrayList<>();
    for (TopKey key : snapshot.topRefused()) {
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("domain", key.key().domain());
      node.put("rule", key.key().rule());
      node.put("descriptor", key.key().key());
      node.put("refusals", key.refusals());
      top.add(node);
    }
    feed.put("topRefused", top);
    feed.put("config", configuration(configuration));
    feed.put("backend", new LinkedHashMap<>(backend));
    return feed;
  }

  /**
   * {@code feed} as JSON text; every string is escaped, so keys chosen by clients stay strings.
   *
   * @throws IllegalArgumentException if the tree holds a value other than a map, list, {@code
   *     long[]}, string, integer, long, boolean or null
   */
  public static String toJson(Map<String, ?> feed) {
    return Json.write(feed);
  }

  private static Map<String, Object> series(Map<String, Object> node, Series series) {
    node.put("decisions", series.decisions());
    node.put("refusals", series.refusals());
    node.put("dryRunRefusals", series.dryRunRefusals());
    return node;
  }

  private static Map<String, Object> configuration(Configuration configuration) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("path", configuration.path());
    out.put("lastReloadError", configuration.lastReloadError());
    List<Object> domains = new ArrayList<>();
    for (Domain domain : configuration.domains()) {
      Map<String, Object> node = new LinkedHashMap<>();
      node.put("domain", domain.domain());
      List<Object> rules = new ArrayList<>();
      for (Rule rule : domain.rules()) {
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("rule", rule.rule());
        row.put("name", rule.name());
        row.put("limits", rule.limits());
        row.put("shadowMode", rule.shadowMode());
        row.put("source", rule.source());
        rules.add(row);
      }
      node.put("rules", rules);
      domains.add(node);
    }
    out.put("domains", domains);
    return out;
  }

  /** {@code limits} as text, for example {@code "5 per 10s, 100 per 90s"}. */
  public static String limits(List<Limit> limits) {
    List<String> parts = new ArrayList<>(limits.size());
    for (Limit limit : limits) {
      parts.add(limit.permits() + " per " + window(limit.window()));
    }
    return String.join(", ", parts);
  }

  /** A window as a whole number of the largest unit that divides it: {@code 90s}, {@code 1d}. */
  public static String window(Duration window) {
    long nanos;
    try {
      nanos = window.toNanos();
    } catch (ArithmeticException e) {
      return window.toString();
    }
    long[] sizes = {
      86_400_000_000_000L,
      3_600_000_000_000L,
      60_000_000_000L,
      1_000_000_000L,
      1_000_000L,
      1_000L,
      1L
    };
    String[] names = {"d", "h", "m", "s", "ms", "us", "ns"};
    for (int i = 0; i < sizes.length; i++) {
      if (nanos % sizes[i] == 0) {
        return nanos / sizes[i] + names[i];
      }
    }
    return window.toString();
  }
}
