package io.slidingwindow.spring.boot.web;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.boot.internal.PlanChanges;
import io.slidingwindow.spring.boot.internal.PropertyChecks;
import io.slidingwindow.spring.boot.internal.RulesInService;
import io.slidingwindow.spring.internal.KeyLanguage;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The rules of {@code slidingwindow.http.rules} as one web stack serves them ({@code T}: the
 * servlet enforcer, or the reactive filter's core), rebuilt from new properties when the
 * application's configuration is refreshed.
 *
 * <p>A reload keeps the limiter, and so the counts, of every rule whose name, key (as written),
 * limits, plans and count-refused-attempts are unchanged, whatever else changed (paths, methods,
 * conditions, cost, dry-run); any other rule starts from zero, and the limiters of rules that are
 * gone are dropped. A reload that fails (a bad value) changes nothing: the rules in service stay.
 * Requests in flight finish with the rules they started with.
 *
 * <p>A plan's limits may also be changed at run time ({@link #changePlan}), keeping each key's
 * counts. The configuration wins on the next reload: a rule whose limiter is kept has its
 * configuration's plans put back in service (its keys keep their counts, by the same rule), and the
 * log says which run-time changes were undone; a rule whose plans changed in the configuration
 * starts anew, as above.
 *
 * <p>Thread-safe: reloads are serialized, and {@link #get()} reads the rules in service without a
 * lock.
 *
 * @param <T> what a web stack serves the rules with
 */
final class ReloadableRules<T> implements Supplier<T>, RulesInService {

  /** Builds a stack's rules from properties, creating their limiters through the factory given. */
  @FunctionalInterface
  interface Build<T> {
    T build(SlidingWindowHttpProperties properties, RateLimiterFactory limiters);
  }

  /** What a limiter's counts depend on: the rule's key as written and its limits. */
  private record Signature(
      String key, List<Limit> limits, boolean countRefusedAttempts, RulePlans.Signature plans) {}

  private record Kept(Signature signature, KeyedRateLimiter<String> limiter, RulePlans plans) {}

  private static final System.Logger LOG = System.getLogger(ReloadableRules.class.getName());

  private final RateLimiterFactory backend;
  private final Build<T> build;
  private final Function<String, PlanResolver<?>> planResolverBeans;
  private Map<String, Kept> limiters = Map.of(); // guarded by this
  private volatile T current;
  private volatile Consumer<String> nameCheck = name -> {};
  private final List<Consumer<Set<String>>> removalListeners = new CopyOnWriteArrayList<>();

  /**
   * Builds the rules of {@code properties}.
   *
   * @throws IllegalArgumentException naming the property if a value is invalid
   */
  ReloadableRules(
      RateLimiterFactory backend, Build<T> build, SlidingWindowHttpProperties properties) {
    this(backend, build, properties, name -> null);
  }

  /**
   * Builds the rules of {@code properties}, looking up the {@code plan-resolver} beans of rules by
   * name with {@code planResolverBeans} (null if there is none).
   *
   * @throws IllegalArgumentException naming the property if a value is invalid
   */
  ReloadableRules(
      RateLimiterFactory backend,
      Build<T> build,
      SlidingWindowHttpProperties properties,
      Function<String, PlanResolver<?>> planResolverBeans) {
    this.backend = backend;
    this.build = build;
    this.planResolverBeans = planResolverBeans;
    reload(properties);
  }

  @Override
  public synchronized Optional<KeyedRateLimiter<String>> limiter(String name) {
    Kept kept = limiters.get(name);
    return kept == null ? Optional.empty() : Optional.of(kept.limiter());
  }

  /**
   * Runs {@code check} on each rule name of every later reload, before anything is built: it throws
   * to refuse the configuration (a name an annotation uses), and the message names the rule's
   * property.
   */
  void checkNamesWith(Consumer<String> check) {
    this.nameCheck = check;
  }

  @Override
  public void onRemoved(Consumer<Set<String>> listener) {
    removalListeners.add(listener);
  }

  /** The rules in service. */
  @Override
  public T get() {
    return current;
  }

  /**
   * Puts the rules of {@code properties} in service, keeping the limiters of unchanged rules.
   *
   * @return the rules now in service
   * @throws IllegalArgumentException naming the property if a value is invalid; the rules in
   *     service stay
   */
  synchronized T reload(SlidingWindowHttpProperties properties) {
    for (String name : properties.getRules().keySet()) {
      PropertyChecks.check(
          SlidingWindowHttpProperties.PREFIX + ".rules." + name, () -> nameCheck.accept(name));
    }
    Map<String, RulePlans> plans = new HashMap<>();
    for (Map.Entry<String, SlidingWindowHttpProperties.Rule> e : properties.getRules().entrySet()) {
      String prefix = SlidingWindowHttpProperties.PREFIX + ".rules." + e.getKey();
      plans.put(e.getKey(), RulePlans.of(prefix, e.getValue(), planResolverBeans));
    }
    Map<String, Kept> next = new HashMap<>();
    RateLimiterFactory reusing =
        (name, limits, countRefused) -> {
          SlidingWindowHttpProperties.Rule rule = properties.getRules().get(name);
          RulePlans rulePlans = plans.getOrDefault(name, RulePlans.NONE);
          Signature signature =
              new Signature(
                  rule == null ? "" : KeyLanguage.normalize(rule.getKey()),
                  List.copyOf(limits),
                  countRefused,
                  rulePlans.signature());
          Kept old = limiters.get(name);
          Kept kept =
              old != null && old.signature().equals(signature)
                  ? new Kept(signature, old.limiter(), old.plans())
                  : new Kept(signature, create(name, limits, countRefused, rulePlans), rulePlans);
          next.put(name, kept);
          return kept.limiter();
        };
    T built;
    try {
      built = build.build(properties, reusing);
    } catch (RuntimeException e) {
      releaseAllBut(next, limiters); // limiters made for the failed build
      throw e;
    }
    releaseAllBut(limiters, next);
    Set<String> removed = new HashSet<>(limiters.keySet());
    removed.removeAll(next.keySet());
    limiters = Map.copyOf(next);
    current = built;
    next.forEach(ReloadableRules::restoreConfiguredPlans);
    if (!removed.isEmpty()) {
      Set<String> names = Set.copyOf(removed);
      removalListeners.forEach(listener -> listener.accept(names));
    }
    return built;
  }

  @Override
  public synchronized Optional<Map<String, PlanState>> plans(String name) {
    Kept kept = limiters.get(name);
    if (kept == null) {
      return Optional.empty();
    }
    PlansInService plans = kept.plans().inService();
    Map<String, PlanState> states = new LinkedHashMap<>();
    plans
        .plans()
        .forEach((plan, now) -> states.put(plan, new PlanState(now, plans.configured(plan))));
    return Optional.of(states);
  }

  /**
   * Puts {@code limits} in service for plan {@code plan} of rule {@code rule}, at once for every
   * key on it, keeping each key's recorded permits as {@link Plan} says: a limit on the same window
   * and precision as one of the plan's keeps that window's counts, so no later grant takes a window
   * past its new limit. The change lasts until the next reload, which puts the configuration's
   * limits back (and logs so).
   *
   * @return the plan as it was in service before the change
   * @throws NoSuchElementException if no rule of that name is in service, or it has no such plan in
   *     its {@code plans} property; the message says which
   * @throws UnsupportedOperationException if the rule's limiter, from an application's own {@code
   *     RateLimiterFactory}, may not see the change
   * @throws IllegalArgumentException naming {@code limits[i]} if the backend cannot enforce a limit
   */
  @Override
  public synchronized Plan changePlan(String rule, String plan, List<Limit> limits) {
    Kept kept = limiters.get(rule);
    if (kept == null) {
      throw new NoSuchElementException("no rule named '" + rule + "' is in service");
    }
    PlansInService plans = kept.plans().inService();
    Plan configured = plans.configured(plan);
    if (configured == null) {
      throw new NoSuchElementException(
          "rule " + rule + " has no plan named '" + plan + "' " + plans.plans().keySet());
    }
    if (!PlanChanges.takesChanges(kept.limiter())) {
      throw new UnsupportedOperationException(
          "the rule's limiter ("
              + kept.limiter().getClass().getName()
              + ", from the application's RateLimiterFactory) may keep plans a change cannot"
              + " reach");
    }
    PlanChanges.check(kept.limiter(), limits);
    Plan before = plans.change(plan, limits);
    kept.limiter().refreshPlans();
    return before;
  }

  /**
   * After a reload that kept {@code kept}'s limiter: the configuration's plans are in service
   * again, each key keeping its counts, and the log names the run-time changes dropped.
   */
  private static void restoreConfiguredPlans(String rule, Kept kept) {
    PlansInService plans = kept.plans().inService();
    Map<String, Plan> dropped = plans.clear();
    if (dropped.isEmpty()) {
      return;
    }
    kept.limiter().refreshPlans();
    dropped.forEach(
        (plan, runTime) ->
            LOG.log(
                System.Logger.Level.INFO,
                "slidingwindow plan change undone by a reload: rule={0} plan={1} limits={2} -> {3}"
                    + " (the configuration''s; the counts are kept)",
                rule,
                plan,
                PlanChanges.text(runTime),
                PlanChanges.text(plans.configured(plan))));
  }

  /**
   * A limiter from the backend, with the rule's plans if it has any.
   *
   * @throws IllegalArgumentException naming the rule's plans property if the backend cannot give
   *     keys plans
   */
  private KeyedRateLimiter<String> create(
      String name, List<Limit> limits, boolean countRefused, RulePlans plans) {
    if (plans.resolver() == null) {
      return backend.create(name, limits, countRefused);
    }
    try {
      return backend.create(name, limits, countRefused, plans.resolver());
    } catch (UnsupportedOperationException e) {
      throw new IllegalArgumentException(
          SlidingWindowHttpProperties.PREFIX + ".rules." + name + ".plans: " + e.getMessage(), e);
    }
  }

  /** Tells the backend that the limiters of {@code dropped} but not of {@code kept} are gone. */
  private void releaseAllBut(Map<String, Kept> dropped, Map<String, Kept> kept) {
    for (Map.Entry<String, Kept> entry : dropped.entrySet()) {
      Kept keeping = kept.get(entry.getKey());
      if (keeping == null || keeping.limiter() != entry.getValue().limiter()) {
        backend.release(entry.getValue().limiter());
      }
    }
  }
}
