package io.slidingwindow.spring;

import io.slidingwindow.Limit;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.servlet.RateLimitRule;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Turns bound properties into rules, failing with a message that names the offending property.
 */
final class RuleBinder {

  private RuleBinder() {}

  /**
   * The rules of {@code properties}, in the order written.
   *
   * @param keyResolverBeans looks up a {@link KeyResolver} bean by name for {@code bean:NAME} keys;
   *     returns null if there is none
   * @throws IllegalArgumentException naming the property and its value if one is invalid
   */
  static List<RateLimitRule> rules(
      SlidingWindowHttpProperties properties,
      ClientIpResolver clientIp,
      Function<String, KeyResolver> keyResolverBeans) {
    List<RateLimitRule> rules = new ArrayList<>();
    for (Map.Entry<String, SlidingWindowHttpProperties.Rule> e : properties.getRules().entrySet()) {
      String prefix = SlidingWindowHttpProperties.PREFIX + ".rules." + e.getKey();
      SlidingWindowHttpProperties.Rule rule = e.getValue();
      RateLimitRule.Builder builder;
      try {
        builder = RateLimitRule.builder(e.getKey());
      } catch (IllegalArgumentException ex) {
        throw invalid(prefix, "name", ex);
      }
      for (int i = 0; i < rule.getPaths().size(); i++) {
        try {
          builder.path(rule.getPaths().get(i));
        } catch (IllegalArgumentException ex) {
          throw invalid(prefix, "paths[" + i + "]", ex);
        }
      }
      try {
        builder.methods(rule.getMethods().toArray(new String[0]));
      } catch (IllegalArgumentException ex) {
        throw invalid(prefix, "methods", ex);
      }
      builder.key(keyResolver(prefix + ".key", rule.getKey(), clientIp, keyResolverBeans));
      if (rule.getLimits() == null || rule.getLimits().isEmpty()) {
        throw new IllegalArgumentException(
            prefix + ".limits must hold at least one limit (permits and window), was empty");
      }
      for (int i = 0; i < rule.getLimits().size(); i++) {
        builder.limit(limit(prefix + ".limits[" + i + "]", rule.getLimits().get(i)));
      }
      builder.countRefusedAttempts(rule.isCountRefusedAttempts());
      builder.dryRun(rule.getDryRun() != null ? rule.getDryRun() : properties.isDryRun());
      rules.add(builder.build());
    }
    return List.copyOf(rules);
  }

  /** A limit from its properties. */
  static Limit limit(String prefix, SlidingWindowHttpProperties.LimitSpec spec) {
    if (spec == null) {
      throw new IllegalArgumentException(prefix + " must not be empty");
    }
    Long permits = spec.getPermits();
    if (permits == null || permits <= 0) {
      throw new IllegalArgumentException(prefix + ".permits must be positive, was " + permits);
    }
    Duration window = spec.getWindow();
    if (window == null || window.isNegative() || window.isZero()) {
      throw new IllegalArgumentException(prefix + ".window must be positive, was " + window);
    }
    Limit limit;
    try {
      limit = Limit.of(permits, window);
    } catch (IllegalArgumentException ex) {
      throw invalid(prefix, "window", ex);
    }
    if (spec.getPrecision() != null) {
      try {
        limit = limit.withPrecision(spec.getPrecision());
      } catch (IllegalArgumentException ex) {
        throw invalid(prefix, "precision", ex);
      }
    }
    return limit;
  }

  /** The key resolver a {@code key} property names (see {@link KeyExpressions}). */
  static KeyResolver keyResolver(
      String property,
      String key,
      ClientIpResolver clientIp,
      Function<String, KeyResolver> keyResolverBeans) {
    return KeyExpressions.resolver(property, key, clientIp, keyResolverBeans);
  }

  private static IllegalArgumentException invalid(
      String prefix, String property, IllegalArgumentException cause) {
    return new IllegalArgumentException(
        prefix + "." + property + " is invalid: " + cause.getMessage(), cause);
  }
}
