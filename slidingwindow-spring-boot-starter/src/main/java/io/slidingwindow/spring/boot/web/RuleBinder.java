package io.slidingwindow.spring.boot.web;

import static io.slidingwindow.spring.boot.internal.PropertyChecks.bind;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.StatusRanges;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.servlet.RateLimitEnforcer;
import io.slidingwindow.spring.RateLimitKeyContext;
import io.slidingwindow.webmvc.internal.ServletKeys;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/** Turns bound properties into rules, failing with a message that names the offending property. */
final class RuleBinder {

  private RuleBinder() {}

  /**
   * A rule bound from {@code slidingwindow.http.rules.NAME}, without its key resolver, which each
   * web stack makes from {@code key} itself.
   *
   * @param rule the rule
   * @param keyProperty the key's property, for messages
   * @param key the key as written
   * @param terms the rule's conditions and per-request cost
   */
  record Bound(HttpRule rule, String keyProperty, String key, RuleTerms terms) {}

  /**
   * The rules of {@code properties}, in the order written, each with its key still as text.
   *
   * @param ignoreCase whether the rules match their paths regardless of case, as handlers that do
   *     need (see {@link HandlerPaths})
   * @throws IllegalArgumentException naming the property and its value if one is invalid
   */
  static List<Bound> bound(SlidingWindowHttpProperties properties, boolean ignoreCase) {
    List<Bound> rules = new ArrayList<>();
    for (Map.Entry<String, SlidingWindowHttpProperties.Rule> e : properties.getRules().entrySet()) {
      String prefix = SlidingWindowHttpProperties.PREFIX + ".rules." + e.getKey();
      SlidingWindowHttpProperties.Rule rule = e.getValue();
      HttpRule.Builder builder = bind(prefix, () -> HttpRule.builder(e.getKey()));
      for (int i = 0; i < rule.getPaths().size(); i++) {
        String path = rule.getPaths().get(i);
        bind(prefix + ".paths[" + i + "]", () -> builder.path(path));
      }
      builder.ignoreCase(ignoreCase);
      bind(prefix + ".methods", () -> builder.methods(rule.getMethods().toArray(new String[0])));
      List<SlidingWindowHttpProperties.LimitSpec> limits =
          rule.getLimits() == null ? List.of() : rule.getLimits();
      for (int i = 0; i < limits.size(); i++) {
        builder.limit(limit(prefix + ".limits[" + i + "]", limits.get(i)));
      }
      builder.countRefusedAttempts(rule.isCountRefusedAttempts());
      builder.countStatuses(countStatuses(prefix, rule));
      builder.dryRun(rule.getDryRun() != null ? rule.getDryRun() : properties.isDryRun());
      bind(prefix + ".cost", () -> builder.cost(rule.getCost()));
      HttpRule built = bind(limits.isEmpty() ? prefix : prefix + ".cost", builder::build);
      rules.add(new Bound(built, prefix + ".key", rule.getKey(), RuleTerms.of(prefix, rule)));
    }
    return List.copyOf(rules);
  }

  /**
   * Adds the rules of {@code properties}, in the order written, to {@code enforcer}.
   *
   * @param keyResolverBeans looks up a {@link KeyResolver} bean by name for {@code bean:NAME} keys;
   *     returns null if there is none
   * @param ignoreCase whether the rules match their paths regardless of case
   * @return {@code enforcer}
   * @throws IllegalArgumentException naming the property and its value if one is invalid
   */
  static RateLimitEnforcer.Builder addRules(
      RateLimitEnforcer.Builder enforcer,
      SlidingWindowHttpProperties properties,
      ClientIpResolver clientIp,
      Function<String, KeyResolver> keyResolverBeans,
      boolean ignoreCase) {
    Function<HttpServletRequest, RateLimitKeyContext> contexts =
        request -> ServletKeys.context(request, clientIp);
    for (Bound bound : bound(properties, ignoreCase)) {
      enforcer.rule(
          bound.rule(),
          ServletKeys.resolver(bound.keyProperty(), bound.key(), clientIp, keyResolverBeans),
          bound.terms().condition(contexts),
          bound.terms().cost(contexts, bound.rule().cost()));
    }
    return enforcer;
  }

  /**
   * The rule's {@code count-statuses}, or null if it has none (every request counts).
   *
   * @throws IllegalArgumentException naming {@code prefix.count-statuses[i]} and the bad entry, or
   *     {@code prefix.count-statuses} if the rule also counts refused attempts
   */
  static StatusRanges countStatuses(String prefix, SlidingWindowHttpProperties.Rule rule) {
    List<String> written = rule.getCountStatuses();
    if (written == null || written.isEmpty()) {
      return null;
    }
    if (rule.isCountRefusedAttempts()) {
      throw new IllegalArgumentException(
          prefix
              + ".count-statuses: a rule that counts refused attempts cannot give permits back,"
              + " set count-refused-attempts or count-statuses, not both; was "
              + written);
    }
    try {
      return StatusRanges.parse(written);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(prefix + ".count-statuses" + e.getMessage(), e);
    }
  }

  /**
   * A limit from its properties, each value checked by {@link Limit} itself: the window alone
   * first, then the permits with it, then the precision, so that a message names the property at
   * fault without reading the reason's text.
   *
   * @throws IllegalArgumentException naming the property ({@code prefix.permits}, {@code
   *     prefix.window} or {@code prefix.precision}) and {@link Limit}'s reason
   */
  static Limit limit(String prefix, SlidingWindowHttpProperties.LimitSpec spec) {
    if (spec == null) {
      throw new IllegalArgumentException(prefix + ": a limit needs permits and window, was empty");
    }
    Long permits = spec.getPermits();
    if (permits == null) {
      throw new IllegalArgumentException(prefix + ".permits: permits must be set, was null");
    }
    // The window alone first (with a valid count), then the count with the checked window.
    Duration window = bind(prefix + ".window", () -> Limit.of(1, spec.getWindow())).window();
    Limit limit = bind(prefix + ".permits", () -> Limit.of(permits, window));
    Duration precision = spec.getPrecision();
    return precision == null
        ? limit
        : bind(prefix + ".precision", () -> limit.withPrecision(precision));
  }
}
