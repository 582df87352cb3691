package io.slidingwindow.spring.boot.dashboard;

import io.slidingwindow.DurationText;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.spring.boot.dashboard.SlidingWindowQuotas.Answer;
import io.slidingwindow.spring.boot.internal.PlanChanges;
import io.slidingwindow.spring.boot.internal.RulesInService;
import io.slidingwindow.spring.boot.internal.RulesInService.PlanState;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The plan operations of the {@code slidingwindow} endpoint: a rule's plans with the limits in
 * service, and a run-time change of a plan's limits ({@link RulesInService#changePlan}) that
 * reaches every key on the plan at once and keeps each key's recorded permits.
 *
 * <p>A request writes the limits as {@link Limit#parse} reads them, separated by commas: {@code
 * {"limits":"8/10s"}} or {@code {"limits":"8/10s, 100/1h"}} (the actuator takes a flat JSON
 * object). A limit on the window of one of the plan's limits keeps that limit's precision, and so
 * the window's counts. Each change, done or refused, writes one INFO line to the log (logger {@code
 * io.slidingwindow.spring.boot.dashboard.SlidingWindowQuotas}, with the other quota operations):
 * the rule, the plan and its limits before and after. Thread-safe.
 */
final class SlidingWindowPlans {

  private static final System.Logger LOG = System.getLogger(SlidingWindowQuotas.AUDIT_LOGGER);

  private final Supplier<Stream<RulesInService>> rules;

  /** Operates on the rules in service of {@code rules} (each web stack's, usually one). */
  SlidingWindowPlans(Supplier<Stream<RulesInService>> rules) {
    this.rules = rules;
  }

  /**
   * The plans of rule {@code rule}: 200 with {@code {"rule":..,"plans":{"free":{"limits":[
   * {"permits":5,"window":"10s","precision":"10ms"}],"changed":false}}}} (a changed plan also has
   * {@code "configured"}, the configuration's limits), 404 if no such rule is in service.
   */
  public Answer plans(String rule) {
    Optional<Map<String, PlanState>> plans = plansOf(rule);
    if (plans.isEmpty()) {
      return notFound("no rule named '" + rule + "' is in service");
    }
    Map<String, Object> byName = new LinkedHashMap<>();
    plans.get().forEach((name, state) -> byName.put(name, body(state)));
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("rule", rule);
    body.put("plans", byName);
    return new Answer(200, body);
  }

  /** Plan {@code plan} of rule {@code rule}, as one entry of {@link #plans}; 404 if none. */
  public Answer plan(String rule, String plan) {
    Optional<Map<String, PlanState>> plans = plansOf(rule);
    if (plans.isEmpty()) {
      return notFound("no rule named '" + rule + "' is in service");
    }
    PlanState state = plans.get().get(plan);
    if (state == null) {
      return notFound("rule " + rule + " has no plan named '" + plan + "' " + plans.get().keySet());
    }
    return new Answer(200, planBody(rule, plan, state));
  }

  /**
   * Puts {@code limits} (the request's {@code limits}, such as {@code "8/10s"}; see {@link
   * #limits}) in service for plan {@code plan} of rule {@code rule}: 200 with the plan as {@link
   * #plan} answers it and {@code "before"}, the limits before; 400 naming the field and value if a
   * limit is bad, 404 if no such rule or plan is in service, 501 if the rule's limiter, from the
   * application's own {@code RateLimiterFactory}, cannot take the change.
   */
  public Answer change(String rule, String plan, String limits) {
    List<RulesInService> serving = rules.get().filter(r -> r.limiter(rule).isPresent()).toList();
    if (serving.isEmpty()) {
      return refused(rule, plan, 404, "no rule named '" + rule + "' is in service");
    }
    PlanState now = plansOf(rule).map(p -> p.get(plan)).orElse(null);
    List<Limit> parsed;
    try {
      parsed = limits(limits, now == null ? null : now.inService());
    } catch (IllegalArgumentException e) {
      return refused(rule, plan, 400, e.getMessage());
    }
    Plan before = null;
    try {
      for (RulesInService stack : serving) {
        Plan was = stack.changePlan(rule, plan, parsed);
        before = before == null ? was : before;
      }
    } catch (NoSuchElementException e) {
      return refused(rule, plan, 404, e.getMessage());
    } catch (UnsupportedOperationException e) {
      return refused(
          rule, plan, 501, "rule " + rule + ": plan changes are not supported: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      return refused(rule, plan, 400, e.getMessage());
    }
    PlanState after = plansOf(rule).orElseThrow().get(plan);
    Map<String, Object> body = planBody(rule, plan, after);
    body.put("before", limitsBody(before));
    LOG.log(
        Level.INFO,
        "slidingwindow plan change: rule={0} plan={1} limits={2} -> {3}",
        rule,
        plan,
        PlanChanges.text(before),
        PlanChanges.text(after.inService()));
    return new Answer(200, body);
  }

  private Optional<Map<String, PlanState>> plansOf(String rule) {
    return rules.get().flatMap(r -> r.plans(rule).stream()).findFirst();
  }

  private static Answer refused(String rule, String plan, int status, String reason) {
    LOG.log(
        Level.INFO,
        "slidingwindow plan change refused: rule={0} plan={1} ({2}: {3})",
        rule,
        plan,
        status,
        reason);
    return new Answer(status, Map.of("error", reason));
  }

  private static Answer notFound(String reason) {
    return new Answer(404, Map.of("error", reason));
  }

  private static Map<String, Object> planBody(String rule, String plan, PlanState state) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("rule", rule);
    body.put("plan", plan);
    body.putAll(body(state));
    return body;
  }

  private static Map<String, Object> body(PlanState state) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("limits", limitsBody(state.inService()));
    body.put("changed", state.changed());
    if (state.changed()) {
      body.put("configured", limitsBody(state.configured()));
    }
    return body;
  }

  private static List<Map<String, Object>> limitsBody(Plan plan) {
    List<Map<String, Object>> limits = new ArrayList<>();
    for (Limit limit : plan.limits()) {
      Map<String, Object> one = new LinkedHashMap<>();
      one.put("permits", limit.permits());
      one.put("window", limit.isCalendar() ? limit.toText() : DurationText.format(limit.window()));
      if (!limit.isCalendar()) {
        one.put("precision", DurationText.format(limit.precision()));
      }
      limits.add(one);
    }
    return limits;
  }

  /**
   * The limits of a request's {@code limits}, written as {@link Limit#parse} reads them and
   * separated by commas ({@code "8/10s, 100/1h"}). A limit on the window of one of {@code
   * current}'s takes that limit's precision, so that it keeps that window's counts; any other has
   * the default precision.
   *
   * @throws IllegalArgumentException naming the field ({@code limits[1]}) and its value
   */
  static List<Limit> limits(String text, Plan current) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException(
          "limits: must be one or more limits such as \"8/10s\" or \"8/10s, 100/1h\", was '"
              + text
              + "'");
    }
    String[] parts = text.split(",", -1);
    List<Limit> limits = new ArrayList<>();
    for (int i = 0; i < parts.length; i++) {
      String part = parts[i];
      Limit limit = bind("limits[" + i + "]", () -> Limit.parse(part.trim()));
      limits.add(current == null ? limit : withPrecisionOf(limit, current));
    }
    return limits;
  }

  private static Limit withPrecisionOf(Limit limit, Plan current) {
    if (limit.isCalendar()) {
      return limit;
    }
    for (Limit old : current.limits()) {
      if (!old.isCalendar() && old.window().equals(limit.window())) {
        return limit.withPrecision(old.precision());
      }
    }
    return limit;
  }

  private static <T> T bind(String at, Supplier<T> make) {
    try {
      return make.get();
    } catch (IllegalArgumentException e) {
      String message = e.getMessage();
      throw new IllegalArgumentException(
          message != null && message.startsWith(at) ? message : at + ": " + message, e);
    }
  }
}
