package io.slidingwindow.spring.boot.internal;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The rules of {@code slidingwindow.http.rules} that one web stack serves, as the dashboard reads
 * and changes them: a bean of each web configuration, rebuilt when the configuration is refreshed.
 * Thread-safe.
 */
public interface RulesInService {

  /**
   * A plan of a rule in service: the limits in service, and the configuration's.
   *
   * @param inService the plan with the limits its keys get now
   * @param configured the plan as the configuration has it
   */
  record PlanState(Plan inService, Plan configured) {

    /** Whether the limits in service were changed at run time. */
    public boolean changed() {
      return !inService.equals(configured);
    }
  }

  /**
   * The limiter in service for the rule named {@code name}, or empty if no rule of that name is in
   * service.
   */
  Optional<KeyedRateLimiter<String>> limiter(String name);

  /**
   * The plans of rule {@code name} in service, by name in the order written (empty if it has none),
   * or empty if no rule of that name is in service.
   */
  Optional<Map<String, PlanState>> plans(String name);

  /**
   * Puts {@code limits} in service for plan {@code plan} of rule {@code rule}, at once for every
   * key on it, keeping each key's recorded permits as {@link Plan} says. The change lasts until the
   * next reload, which puts the configuration's limits back (and logs so).
   *
   * @return the plan as it was in service before the change
   * @throws NoSuchElementException if no rule of that name is in service, or it has no such plan in
   *     its {@code plans} property; the message says which
   * @throws UnsupportedOperationException if the rule's limiter, from an application's own {@code
   *     RateLimiterFactory}, may not see the change
   * @throws IllegalArgumentException naming {@code limits[i]} if the backend cannot enforce a limit
   */
  Plan changePlan(String rule, String plan, List<Limit> limits);

  /**
   * Tells {@code listener}, after each later reload that took rules out of service, their names.
   */
  void onRemoved(Consumer<Set<String>> listener);
}
