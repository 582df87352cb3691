package io.slidingwindow.redis;

import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.internal.Permits;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The limit sets of a {@link RedisRateLimiter}: its default limits and, with plans, each plan's,
 * each with its script layout, its batcher and the figures its checks and failure policy need.
 * Redis keeps no record of an id's limits: they go with every call, so the plan of an id is asked
 * for on every call. A plan's layout is computed once and kept, for at most {@value #MAX_PLANS}
 * plans (by equality); a resolver that returns more distinct plans gets theirs computed per call.
 * Thread-safe.
 */
final class Layouts {

  /** The most plans whose layouts are kept. */
  static final int MAX_PLANS = 1024;

  /** One limit set. Immutable. */
  static final class Layout {
    /** The plan's name; null for the default limits. */
    final String plan;

    final List<Limit> limits;
    final LimiterScript script;

    /** Null on Cluster, or when batching is off. */
    final Batcher batcher;

    /** The limit with the fewest permits: what the ALLOW and REFUSE policies name. */
    final Limit smallest;

    final Duration longestWindow;
    final long largestGrantable;
    final long largestPermits;

    Layout(String plan, List<Limit> limits, LimiterScript script, Batcher batcher) {
      this.plan = plan;
      this.limits = limits;
      this.script = script;
      this.batcher = batcher;
      Limit least = limits.get(0);
      Limit longest = limits.get(0);
      for (Limit limit : limits) {
        if (limit.permits() < least.permits()) {
          least = limit;
        }
        if (limit.windowNanos() > longest.windowNanos()) {
          longest = limit;
        }
      }
      this.smallest = least;
      this.longestWindow = longest.window();
      this.largestGrantable = Permits.largestGrantable(limits);
      this.largestPermits = Permits.largestPermits(limits);
    }
  }

  private final ScriptCalls calls;
  private final boolean countRefused;
  private final ScriptTime time;
  private final boolean batching;

  /** Null without plans. */
  private final PlanResolver<String> resolver;

  private final Layout defaults;
  private final ConcurrentHashMap<Plan, Layout> plans = new ConcurrentHashMap<>();

  /**
   * The layouts of a limiter on {@code limits} (checked and copied), with {@code resolver} (null
   * for none).
   */
  Layouts(
      ScriptCalls calls,
      List<Limit> limits,
      boolean countRefused,
      ScriptTime time,
      boolean batching,
      PlanResolver<String> resolver) {
    this.calls = calls;
    this.countRefused = countRefused;
    this.time = time;
    this.batching = batching;
    this.resolver = resolver;
    this.defaults = layout(null, limits);
  }

  /** Whether ids may have plans. */
  boolean hasPlans() {
    return resolver != null;
  }

  /** The default limits' layout. */
  Layout defaults() {
    return defaults;
  }

  /**
   * The layout of {@code id}, as given to the limiter: its plan's, or the default one.
   *
   * @throws IllegalArgumentException if the plan has a limit the Redis limiter cannot take (a
   *     sliding window not in whole microseconds)
   */
  Layout of(String id) {
    if (resolver == null) {
      return defaults;
    }
    Plan plan = resolver.planOf(id);
    if (plan == null) {
      return defaults;
    }
    Layout known = plans.get(plan);
    if (known != null) {
      return known;
    }
    Layout computed = layout(plan.name(), plan.limits());
    if (plans.size() < MAX_PLANS) {
      Layout raced = plans.putIfAbsent(plan, computed);
      return raced != null ? raced : computed;
    }
    return computed;
  }

  /** The plan of {@code id}, as given to the limiter, or null for the default limits. */
  Plan planOf(String id) {
    return resolver == null ? null : resolver.planOf(id);
  }

  private Layout layout(String plan, List<Limit> limits) {
    LimiterScript script = new LimiterScript(limits, countRefused, time, resolver != null);
    return new Layout(plan, limits, script, batching ? new Batcher(calls, script) : null);
  }
}
