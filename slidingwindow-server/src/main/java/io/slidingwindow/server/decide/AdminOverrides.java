package io.slidingwindow.server.decide;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Quota;
import io.slidingwindow.server.config.Rule;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The admin port's run-time overrides: limits that replace, for one descriptor ({@link
 * DescriptorKey}), those of the rule it selects, and the quota operations on one descriptor.
 *
 * <p>An override acts through the rule's own limiter, as the {@link Plan} of the id the rule counts
 * the descriptor under, so its recorded permits follow the change as {@link Plan} states: a limit
 * with the same window and precision as one the descriptor had keeps that window's counts (raising
 * 5/10s to 20/10s forgets nothing, lowering it refuses at once if the window holds more), a new
 * window is seeded from the old ones in memory and starts empty on Redis, and a window that no
 * limit has any more is forgotten. An override's limit with the same window as one of the rule's is
 * counted at that limit's precision, so that it keeps its counts.
 *
 * <p>Overrides are run-time state of this process, apart from the configuration files: a reload
 * keeps them and matches each against the new rules again; one whose descriptor selects no rule
 * with limits any more waits, inactive, until a reload brings one back. They are not shared with
 * other instances, on Redis neither. At most {@code max} are kept. Thread-safe: changes and reloads
 * are serialised on the decider's lock.
 */
public final class AdminOverrides {

  /** The most limits one override has. */
  public static final int MAX_LIMITS = 8;

  /** The name of the plan an override gives its descriptor's id. */
  static final String PLAN = "override";

  /**
   * An override and the rule it applies to now.
   *
   * @param descriptor the descriptor it is for
   * @param limits its limits, as given
   * @param rule the rule whose limits it replaces now, or null while its descriptor selects no rule
   *     with limits
   */
  public record View(DescriptorKey descriptor, List<Limit> limits, Rule rule) {}

  /**
   * What is left of one descriptor's limits.
   *
   * @param rule the rule that counts it
   * @param quota what is left of each of its limits
   */
  public record Usage(Rule rule, Quota quota) {}

  /** A new override refused because the most are kept already. */
  public static final class Full extends RuntimeException {
    private static final long serialVersionUID = 1L;

    Full(String message) {
      super(message, null, false, false);
    }
  }

  /** The overrides of one rule's ids: the plan resolver of the rule's limiter. Thread-safe. */
  static final class RulePlans implements PlanResolver<String> {
    private volatile Map<String, Plan> plans = Map.of();

    @Override
    public Plan planOf(String id) {
      return plans.get(id);
    }

    /** The plan of descriptor {@code d} of {@code request} under {@code rule}, or null. */
    Plan planOf(Decider.State current, DecisionRequest request, int d, Rule rule) {
      Map<String, Plan> now = plans;
      if (now.isEmpty()) { // the common case: nothing to compute
        return null;
      }
      return now.get(LimiterIds.ofRule(current.idPrefixes().get(rule.index()), rule, request, d));
    }
  }

  private final Decider decider;
  private final int max;
  private final Map<DescriptorKey, List<Limit>> table = new LinkedHashMap<>(); // by decider's lock
  private volatile int size;

  AdminOverrides(Decider decider, int max) {
    this.decider = decider;
    this.max = max;
  }

  /** The most overrides kept at once. */
  public int max() {
    return max;
  }

  /** The number of overrides kept now. */
  public int size() {
    return size;
  }

  /**
   * Sets the limits of {@code descriptor} to {@code limits}, at once, replacing an override it had.
   *
   * @return the override as it applies now
   * @throws BadRequest naming the field at fault: a domain not configured, a descriptor that
   *     selects no rule with limits, or one whose rule counts it with other values (a {@code
   *     share_threshold} wildcard), no limit or more than {@value #MAX_LIMITS}, a calendar quota, a
   *     window or precision not whole microseconds, two limits of one window
   * @throws Full if {@code descriptor} has no override yet and the most are kept
   */
  public View set(DescriptorKey descriptor, List<Limit> limits) {
    checkLimits(limits);
    synchronized (decider) {
      Decider.State current = decider.state();
      Rule rule = limited(current, descriptor);
      if (!table.containsKey(descriptor) && table.size() >= max) {
        throw new Full(
            "the service keeps "
                + max
                + " admin overrides, the most it keeps (--max-admin-overrides); remove one first");
      }
      table.put(descriptor, List.copyOf(limits));
      size = table.size();
      index(current);
      return new View(descriptor, List.copyOf(limits), rule);
    }
  }

  /**
   * Removes the override of {@code descriptor}, at once: its descriptor gets its rule's limits
   * again, its counts carried over as when an override is set.
   *
   * @return the removed override, or null if it had none
   */
  public View remove(DescriptorKey descriptor) {
    synchronized (decider) {
      List<Limit> limits = table.remove(descriptor);
      if (limits == null) {
        return null;
      }
      size = table.size();
      Decider.State current = decider.state();
      index(current);
      return new View(descriptor, limits, applied(current, descriptor));
    }
  }

  /** Every override, in the order they were first set, with the rule each applies to now. */
  public List<View> list() {
    synchronized (decider) {
      Decider.State current = decider.state();
      List<View> views = new ArrayList<>(table.size());
      table.forEach((d, limits) -> views.add(new View(d, limits, applied(current, d))));
      return views;
    }
  }

  /**
   * What is left of {@code descriptor}'s limits now, without taking anything.
   *
   * @throws BadRequest as {@link #set} for the descriptor
   */
  public CompletionStage<Usage> peek(DescriptorKey descriptor) {
    Decider.State current = decider.state();
    Rule rule = limited(current, descriptor);
    return limiter(current, rule)
        .peekAsync(id(current, rule, descriptor))
        .thenApply(quota -> new Usage(rule, quota));
  }

  /**
   * Forgets every permit recorded for {@code descriptor} by its rule: its quota is whole again.
   *
   * @return what is left afterwards
   * @throws BadRequest as {@link #set} for the descriptor
   */
  public CompletionStage<Usage> reset(DescriptorKey descriptor) {
    Decider.State current = decider.state();
    Rule rule = limited(current, descriptor);
    KeyedRateLimiter<String> limiter = limiter(current, rule);
    String id = id(current, rule, descriptor);
    return limiter
        .resetAsync(id)
        .thenCompose(done -> limiter.peekAsync(id))
        .thenApply(quota -> new Usage(rule, quota));
  }

  /**
   * Gives each rule's limiter of {@code current} the overrides of its ids; a limiter whose
   * overrides changed asks again for the plan of each id. Called with the decider's lock held.
   */
  void index(Decider.State current) {
    List<Rule> rules = current.config().rules();
    List<Map<String, Plan>> next = new ArrayList<>(rules.size());
    for (int i = 0; i < rules.size(); i++) {
      next.add(null);
    }
    table.forEach(
        (descriptor, limits) -> {
          Rule rule = applied(current, descriptor);
          if (rule != null) {
            if (next.get(rule.index()) == null) {
              next.set(rule.index(), new HashMap<>());
            }
            String id = id(current, rule, descriptor);
            Plan plan = plan(rule, limits);
            next.get(rule.index()).put(id, plan);
          }
        });
    for (Rule rule : rules) {
      RulePlans plans = current.plans().get(rule.index());
      if (plans == null) {
        continue;
      }
      Map<String, Plan> now = next.get(rule.index());
      Map<String, Plan> ids = now == null ? Map.of() : Map.copyOf(now);
      if (!ids.equals(plans.plans)) {
        plans.plans = ids;
        limiter(current, rule).refreshPlans();
      }
    }
  }

  /**
   * {@code limits} as the plan of an id of {@code rule}: a window of the rule's, at its precision.
   */
  private static Plan plan(Rule rule, List<Limit> limits) {
    List<Limit> counted = new ArrayList<>(limits.size());
    for (Limit limit : limits) {
      Limit at = limit;
      for (Limit own : rule.limits()) {
        if (!own.isCalendar()
            && own.windowNanos() == limit.windowNanos()
            && own.precisionNanos() != limit.precisionNanos()) {
          at = limit.withPrecision(own.precision());
        }
      }
      counted.add(at);
    }
    return Plan.of(PLAN, counted);
  }

  private static void checkLimits(List<Limit> limits) {
    if (limits.isEmpty() || limits.size() > MAX_LIMITS) {
      throw BadRequest.invalid(
          "limits must hold 1 to " + MAX_LIMITS + " limits, had " + limits.size());
    }
    for (int i = 0; i < limits.size(); i++) {
      Limit limit = limits.get(i);
      String at = "limits[" + i + "] '" + limit.toText() + "'";
      if (limit.isCalendar()) {
        throw BadRequest.invalid(at + " is a calendar quota; the service counts sliding windows");
      }
      if (limit.windowNanos() % 1000 != 0 || limit.precisionNanos() % 1000 != 0) {
        throw BadRequest.invalid(at + ": the window must be whole microseconds");
      }
      for (int j = 0; j < i; j++) {
        if (limits.get(j).windowNanos() == limit.windowNanos()) {
          throw BadRequest.invalid(
              at + " has the window of limits[" + j + "]; give one per window");
        }
      }
    }
  }

  /**
   * The rule with limits that {@code descriptor} selects in {@code current}.
   *
   * @throws BadRequest naming the field at fault, if none
   */
  private static Rule limited(Decider.State current, DescriptorKey descriptor) {
    String domain = descriptor.domain();
    if (!current.config().hasDomain(domain)) {
      throw BadRequest.invalid("domain '" + domain + "' is not configured");
    }
    Rule rule = current.config().match(domain, descriptor, 0);
    if (rule == null) {
      throw BadRequest.invalid(
          "entries select no rule in domain '"
              + domain
              + "'; an override replaces the limits of the rule a descriptor selects");
    }
    if (rule.kind() != Rule.Kind.LIMITED) {
      throw BadRequest.invalid(
          "entries select rule '"
              + rule.path()
              + "' ("
              + rule.source()
              + "), which is "
              + (rule.kind() == Rule.Kind.UNLIMITED ? "unlimited" : "blocked")
              + "; only a rule with limits has counts to override");
    }
    int shared = sharedEntry(rule, descriptor);
    if (shared >= 0) {
      throw BadRequest.invalid(
          "entries["
              + shared
              + "].value: rule '"
              + rule.path()
              + "' counts every value its wildcard matches as one (share_threshold), so this"
              + " descriptor has no count of its own");
    }
    return rule;
  }

  /** The rule {@code descriptor} has its override applied by in {@code current}, or null. */
  private static Rule applied(Decider.State current, DescriptorKey descriptor) {
    Rule rule = current.config().match(descriptor.domain(), descriptor, 0);
    return rule != null && rule.kind() == Rule.Kind.LIMITED && sharedEntry(rule, descriptor) < 0
        ? rule
        : null;
  }

  /** The first entry that {@code rule} counts under a wildcard shared by values, or -1. */
  private static int sharedEntry(Rule rule, DescriptorKey descriptor) {
    for (int e = 0; e < descriptor.entries(0); e++) {
      if (rule.sharesCountAt(e)) {
        return e;
      }
    }
    return -1;
  }

  private static KeyedRateLimiter<String> limiter(Decider.State current, Rule rule) {
    return current.limiters().get(rule.index());
  }

  private static String id(Decider.State current, Rule rule, DescriptorKey descriptor) {
    return LimiterIds.ofRule(current.idPrefixes().get(rule.index()), rule, descriptor, 0);
  }
}
