package io.slidingwindow.gateway;

import io.micrometer.core.instrument.MeterRegistry;
import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.boot.web.PlanProperties;
import io.slidingwindow.spring.boot.web.RulePlanProperties;
import io.slidingwindow.spring.boot.web.SlidingWindowHttpProperties.LimitSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.springframework.cloud.gateway.event.FilterArgsEvent;
import org.springframework.cloud.gateway.filter.ratelimit.AbstractRateLimiter;
import org.springframework.cloud.gateway.route.RouteDefinitionRouteLocator;
import org.springframework.cloud.gateway.support.ConfigurationService;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

/**
 * A {@code RateLimiter} for Spring Cloud Gateway's {@code RequestRateLimiter} filter that grants at
 * most {@code permits} requests per key in <em>any</em> interval of length {@code window}, for each
 * of a route's limits.
 *
 * <p>Configuration. Each route gives its limits in the filter's arguments, under {@value
 * #CONFIGURATION_PROPERTY_NAME}: {@code limits[i].permits}, {@code limits[i].window} and optionally
 * {@code limits[i].precision} (see {@link Limit}). Routes without arguments of their own use those
 * of the gateway's default filters. A route with no limits, or with invalid ones, fails when its
 * filters are built, naming the argument. The key is the one the filter's {@code KeyResolver}
 * resolved (see {@link GatewayKeys} for resolvers that key on a checked API key or the client
 * address), stored as {@link LimiterKeys#bounded} of itself, so that a long key costs no more than
 * a short one; each route counts its keys apart from every other route.
 *
 * <p>Plans. A route may give keys other limits than its own: {@code plans.PLAN.limits} (each plan's
 * limits, in the shape of {@code limits}), {@code plan-keys.PLAN} (the keys on each plan, as the
 * key resolver makes them) and {@code plan-resolver} (the name of a {@code PlanResolver<String>}
 * bean, asked first), as in the starter's rules. A key on no plan gets the route's {@code limits}.
 * The plan is looked up with the key the route counts, never with anything else from the request. A
 * bad plan fails when the route's filters are built, naming the argument; routes written in the
 * gateway's properties are checked at start-up. A key on a plan is told its plan's binding limit in
 * the headers, named by the route.
 *
 * <p>Backends. Each route gets one {@link KeyedRateLimiter} from the {@link RateLimiterFactory}:
 * in-process by default, Redis when the application configures one (then every gateway instance
 * shares the route's windows). Every decision goes through {@link KeyedRateLimiter#decideAsync}: a
 * Redis limiter answers when Redis does, an in-process limiter at once. When a route's limits
 * change (its definition is refreshed), the route gets a new limiter; unchanged limits keep their
 * counts.
 *
 * <p>Failures. A decision that fails, or that has not come within the {@code timeout}, is answered
 * by the {@link FailurePolicy}: {@link FailurePolicy#LOCAL} (the default) decides in this process's
 * memory with the route's limits, {@link FailurePolicy#ALLOW} grants, {@link FailurePolicy#REFUSE}
 * refuses; each is counted and logged (see {@code FailureReport}), and a Redis limiter that answers
 * by its own failure policy while Redis is down is reported as well. A key the limiter rejects as
 * invalid is no failure: the request is refused, whatever the policy, and the log says so once per
 * route.
 *
 * <p>Headers. Every decided request gets draft-10 {@code RateLimit-Policy} and {@code RateLimit}
 * headers (unless turned off), a refused one also {@code Retry-After} in whole seconds, never
 * early. A request refused by the failure policy gets {@code Retry-After: 1} only.
 *
 * <p>Thread-safe.
 */
public class SlidingWindowRateLimiter extends AbstractRateLimiter<SlidingWindowRateLimiter.Config> {

  /** The name under which a route's filter arguments hold this limiter's configuration. */
  public static final String CONFIGURATION_PROPERTY_NAME = "sliding-window-rate-limiter";

  /** The default time a decision may take before the failure policy answers. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofMillis(500);

  /** Where the filter arguments of the gateway's default filters are kept. */
  static final String DEFAULT_FILTERS = RouteDefinitionRouteLocator.DEFAULT_FILTERS;

  private final Duration timeout;
  private final Scheduler timer;
  private final RouteAnswers answers;
  private final RouteLimiters routes;

  /** Each route's bound arguments: written when routes are (re)built, read by every request. */
  private final Map<String, Config> configs = new ConcurrentHashMap<>();

  private SlidingWindowRateLimiter(Builder builder) {
    super(Config.class, CONFIGURATION_PROPERTY_NAME, builder.configurationService);
    this.timeout = builder.timeout;
    this.timer = builder.timer;
    this.answers =
        new RouteAnswers(
            builder.onFailure, builder.headers, new FailureReport(builder.meterRegistry));
    this.routes = new RouteLimiters(builder.factory, builder.local, builder.resolverBeans);
  }

  /** A builder; {@link Builder#factory} must be set, everything else has a default. */
  public static Builder builder() {
    return new Builder();
  }

  /** Each route's configuration by route id; a concurrent map, since requests read it. */
  @Override
  public Map<String, Config> getConfig() {
    return configs;
  }

  /**
   * Binds a route's arguments, then builds its limiter at once, so that a route with bad limits
   * fails while the gateway builds its filters, not on its first request. List elements written
   * {@code plan-keys.free.0}, as the gateway's properties flatten a YAML list, are read as {@code
   * plan-keys.free[0]}, so that they bind to the list of plan {@code free}.
   */
  @Override
  public void onApplicationEvent(FilterArgsEvent event) {
    super.onApplicationEvent(
        new FilterArgsEvent(
            event.getSource(), event.getRouteId(), GatewayRouteCheck.indexed(event.getArgs())));
    Config config = getConfig().get(event.getRouteId());
    if (config != null) {
      routeLimiter(event.getRouteId(), config);
    }
  }

  /**
   * Decides one request of {@code id} on {@code routeId}; never blocks. The response carries the
   * headers described above; a refusal is signalled on the timer's scheduler ({@link
   * KeptAliveConnections}); a route without configuration is an error (the filter answers 500).
   */
  @Override
  public Mono<Response> isAllowed(String routeId, String id) {
    RouteLimiter route;
    try {
      route = routeLimiter(routeId, configOf(routeId));
    } catch (IllegalArgumentException e) {
      return Mono.error(e);
    }
    String key = LimiterKeys.bounded(id == null ? "" : id);
    return Mono.defer(
            () -> {
              CompletableFuture<Decision> stage;
              try {
                stage = route.limiter.decideAsync(key, 1).toCompletableFuture();
              } catch (RuntimeException e) {
                return Mono.error(e);
              }
              // Never cancels the limiter's call: a timeout only stops waiting for it.
              Mono<Decision> decision = Mono.fromFuture(stage, true);
              // An in-process decision is already made: no timer to arm and cancel.
              return stage.isDone() ? decision : decision.timeout(timeout, timer);
            })
        .map(decision -> answers.decided(routeId, route, key, decision))
        .onErrorResume(e -> Mono.just(answers.failed(routeId, route, key, e)))
        .transform(answer -> KeptAliveConnections.refusedElsewhere(answer, timer));
  }

  private Config configOf(String routeId) {
    Config config = getConfig().get(routeId);
    if (config == null) {
      config = getConfig().get(DEFAULT_FILTERS);
    }
    if (config == null) {
      throw new IllegalArgumentException(
          "route "
              + routeId
              + " has no "
              + CONFIGURATION_PROPERTY_NAME
              + " arguments, nor do the default filters");
    }
    return config;
  }

  private RouteLimiter routeLimiter(String routeId, Config config) {
    return routes.of(routeId, config);
  }

  /**
   * One route's configuration: its limits, each {@code permits}, {@code window} and optionally
   * {@code precision}, for keys on no plan; and its plans, in the shape of the starter's rules:
   * {@code plans.PLAN.limits}, {@code plan-keys.PLAN} (the keys on each plan, as the route's key
   * resolver makes them) and {@code plan-resolver} (the name of a {@code PlanResolver<String>}
   * bean, asked first). Bound from the route's filter arguments; code that configures a route
   * directly uses {@link #limit(Limit)}, {@link #plan(String, Limit...)} and {@link #planKeys},
   * which take every kind of {@link Limit}, calendar quotas included. Not thread-safe until bound.
   */
  public static class Config extends RulePlanProperties {

    private List<LimitSpec> limits = new ArrayList<>();

    public List<LimitSpec> getLimits() {
      return limits;
    }

    public Config setLimits(List<LimitSpec> limits) {
      this.limits = limits;
      return this;
    }

    /**
     * Adds {@code limit} (a sliding window or a calendar quota) to the route's limits, for code
     * that configures routes directly.
     *
     * @throws IllegalArgumentException if {@code limit} is null
     */
    public Config limit(Limit limit) {
      limits.add(new GivenLimit(limit));
      return this;
    }

    /** As {@link #limit(Limit)} with {@code Limit.of(permits, window)}, checked when bound. */
    public Config limit(long permits, Duration window) {
      return limit(permits, window, null);
    }

    /**
     * Adds the limit of {@code permits} per {@code window} tracked in buckets of {@code precision}
     * (null: the default); checked when the route is bound, naming the argument.
     */
    public Config limit(long permits, Duration window, Duration precision) {
      limits.add(spec(permits, window, precision));
      return this;
    }

    /**
     * Adds {@code limits} (sliding windows or calendar quotas) to plan {@code name}, for code that
     * configures routes directly.
     *
     * @throws IllegalArgumentException if {@code name} is null or blank, or {@code limits} is empty
     *     or holds null
     */
    public Config plan(String name, Limit... limits) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("name must not be blank, was '" + name + "'");
      }
      if (limits == null || limits.length == 0) {
        throw new IllegalArgumentException("plan " + name + ": a plan needs at least one limit");
      }
      List<LimitSpec> given = new ArrayList<>();
      for (Limit limit : limits) {
        given.add(new GivenLimit(limit));
      }
      planLimits(name).addAll(given);
      return this;
    }

    /**
     * Adds the limit of {@code permits} per {@code window} tracked in buckets of {@code precision}
     * (null: the default) to plan {@code name}; checked when the route is bound.
     */
    public Config plan(String name, long permits, Duration window, Duration precision) {
      planLimits(name).add(spec(permits, window, precision));
      return this;
    }

    private List<LimitSpec> planLimits(String name) {
      return getPlans().computeIfAbsent(name, n -> new PlanProperties()).getLimits();
    }

    private static LimitSpec spec(long permits, Duration window, Duration precision) {
      LimitSpec spec = new LimitSpec();
      spec.setPermits(permits);
      spec.setWindow(window);
      spec.setPrecision(precision);
      return spec;
    }

    /** Puts {@code keys} on plan {@code name}, for code that configures routes directly. */
    public Config planKeys(String name, String... keys) {
      getPlanKeys().computeIfAbsent(name, n -> new ArrayList<>()).addAll(List.of(keys));
      return this;
    }

    /**
     * The limits, checked.
     *
     * @throws IllegalArgumentException naming the route and the argument if there is no limit or
     *     one is invalid
     */
    List<Limit> limits(String routeId) {
      String prefix = "route " + routeId + ": " + CONFIGURATION_PROPERTY_NAME + ".limits";
      if (limits == null || limits.isEmpty()) {
        throw new IllegalArgumentException(prefix + ": at least one limit is required, was none");
      }
      List<Limit> checked = new ArrayList<>();
      for (int i = 0; i < limits.size(); i++) {
        checked.add(limit(prefix + "[" + i + "]", limits.get(i)));
      }
      return List.copyOf(checked);
    }

    private static Limit limit(String prefix, LimitSpec spec) {
      if (spec == null) {
        throw new IllegalArgumentException(prefix + ".permits: permits must be set, was null");
      }
      return spec.toLimit(prefix);
    }

    @Override
    public String toString() {
      List<String> shown = new ArrayList<>();
      for (LimitSpec spec : limits) {
        shown.add(
            spec instanceof GivenLimit
                ? spec.toString()
                : spec.getPermits()
                    + " per "
                    + spec.getWindow()
                    + (spec.getPrecision() == null
                        ? ""
                        : " (precision " + spec.getPrecision() + ")"));
      }
      return "Config" + shown + (getPlans().isEmpty() ? "" : " plans " + getPlans().keySet());
    }
  }

  /**
   * Builds a {@link SlidingWindowRateLimiter}. Only the {@link #factory} must be set; a null
   * argument is refused, naming the parameter. Not thread-safe.
   */
  public static final class Builder {

    private RateLimiterFactory factory;
    private Duration timeout = DEFAULT_TIMEOUT;
    private FailurePolicy onFailure = FailurePolicy.DEFAULT;
    private boolean headers = true;
    private ConfigurationService configurationService;
    private MeterRegistry meterRegistry;
    private RateLimiterFactory local = RateLimiterFactory.inMemory();
    private Scheduler timer = Schedulers.parallel();
    private Function<String, PlanResolver<?>> resolverBeans = name -> null;

    private Builder() {}

    /**
     * Sets what makes each route's keyed limiter ({@link RateLimiterFactory#inMemory}, or a Redis
     * one); the rule name it is given is {@code gateway.} followed by the route id. Required.
     */
    public Builder factory(RateLimiterFactory factory) {
      this.factory = nonNull(factory, "factory");
      return this;
    }

    /**
     * Sets how long a decision may take before the failure policy answers; {@link #DEFAULT_TIMEOUT}
     * by default.
     *
     * @throws IllegalArgumentException if {@code timeout} is null or not positive
     */
    public Builder timeout(Duration timeout) {
      if (timeout == null || timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("timeout must be positive, was " + timeout);
      }
      this.timeout = timeout;
      return this;
    }

    /**
     * Sets what answers a failed or late decision; {@link FailurePolicy#DEFAULT} ({@link
     * FailurePolicy#LOCAL}: an in-memory limiter per route, on the system clock) by default.
     */
    public Builder onFailure(FailurePolicy onFailure) {
      this.onFailure = nonNull(onFailure, "onFailure");
      return this;
    }

    /**
     * Sets whether to send the draft-10 {@code RateLimit-Policy} and {@code RateLimit} headers;
     * true by default. {@code Retry-After} is always sent on a refusal.
     */
    public Builder headers(boolean headers) {
      this.headers = headers;
      return this;
    }

    /**
     * Sets the gateway's {@link ConfigurationService}, which binds each route's filter arguments.
     * Without it, only routes whose configuration code puts in {@link #getConfig()} are limited.
     */
    public Builder configurationService(ConfigurationService configurationService) {
      this.configurationService = nonNull(configurationService, "configurationService");
      return this;
    }

    /** Sets where failures and degraded decisions are counted; none by default. */
    public Builder meterRegistry(MeterRegistry meterRegistry) {
      this.meterRegistry = nonNull(meterRegistry, "meterRegistry");
      return this;
    }

    /** Where {@link FailurePolicy#LOCAL} keeps each route's windows; in memory by default. */
    Builder local(RateLimiterFactory local) {
      this.local = nonNull(local, "local");
      return this;
    }

    /** What times decisions out and signals refusals; Reactor's parallel scheduler by default. */
    Builder timer(Scheduler timer) {
      this.timer = nonNull(timer, "timer");
      return this;
    }

    /** Looks up a route's {@code plan-resolver} bean by name (null: none); none by default. */
    Builder resolverBeans(Function<String, PlanResolver<?>> resolverBeans) {
      this.resolverBeans = nonNull(resolverBeans, "resolverBeans");
      return this;
    }

    /**
     * The limiter.
     *
     * @throws IllegalStateException if no {@link #factory} was set
     */
    public SlidingWindowRateLimiter build() {
      if (factory == null) {
        throw new IllegalStateException("factory must be set");
      }
      return new SlidingWindowRateLimiter(this);
    }

    private static <T> T nonNull(T value, String name) {
      if (value == null) {
        throw new IllegalArgumentException(name + " must not be null");
      }
      return value;
    }
  }
}
