package io.slidingwindow.gateway;

import io.micrometer.core.instrument.MeterRegistry;
import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.spring.web.PlanProperties;
import io.slidingwindow.spring.web.RulePlanProperties;
import io.slidingwindow.spring.web.SlidingWindowHttpProperties.LimitSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
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

  private final RateLimiterFactory factory;
  private final RateLimiterFactory local;
  private final Duration timeout;
  private final FailurePolicy onFailure;
  private final boolean headers;
  private final Scheduler timer;
  private final FailureReport report;
  private final Function<String, PlanResolver<?>> resolverBeans;
  private final Map<String, RouteLimiter> routes = new ConcurrentHashMap<>();

  /** Each route's bound arguments: written when routes are (re)built, read by every request. */
  private final Map<String, Config> configs = new ConcurrentHashMap<>();

  /**
   * A limiter whose routes get their limiters from {@code factory}.
   *
   * @param factory makes each route's keyed limiter; the rule name it is given is {@code gateway.}
   *     followed by the route id
   * @param timeout how long a decision may take before {@code onFailure} answers; positive
   * @param onFailure what answers a failed or late decision ({@link FailurePolicy#DEFAULT} is
   *     {@link FailurePolicy#LOCAL}: an in-memory limiter per route, on the system clock)
   * @param headers whether to send the draft-10 {@code RateLimit-Policy} and {@code RateLimit}
   *     headers ({@code Retry-After} is always sent on a refusal)
   * @param configurationService the gateway's, to bind each route's arguments; may be null in tests
   * @param registry where to count failures; may be null
   * @throws IllegalArgumentException if {@code factory} or {@code onFailure} is null, or {@code
   *     timeout} is null or not positive
   */
  public SlidingWindowRateLimiter(
      RateLimiterFactory factory,
      Duration timeout,
      FailurePolicy onFailure,
      boolean headers,
      ConfigurationService configurationService,
      MeterRegistry registry) {
    this(
        factory,
        RateLimiterFactory.inMemory(),
        timeout,
        onFailure,
        headers,
        configurationService,
        registry,
        Schedulers.parallel(),
        name -> null);
  }

  /**
   * As the public constructor, with where {@link FailurePolicy#LOCAL} keeps each route's windows,
   * the scheduler that times decisions out and signals refusals (tests: a fake clock and a virtual
   * scheduler) and where a route's {@code plan-resolver} bean is looked up by name (null for no
   * such bean).
   */
  SlidingWindowRateLimiter(
      RateLimiterFactory factory,
      RateLimiterFactory local,
      Duration timeout,
      FailurePolicy onFailure,
      boolean headers,
      ConfigurationService configurationService,
      MeterRegistry registry,
      Scheduler timer,
      Function<String, PlanResolver<?>> resolverBeans) {
    super(Config.class, CONFIGURATION_PROPERTY_NAME, configurationService);
    if (factory == null || local == null) {
      throw new IllegalArgumentException(
          (factory == null ? "factory" : "local") + " must not be null");
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be positive, was " + timeout);
    }
    if (onFailure == null) {
      throw new IllegalArgumentException("onFailure must not be null");
    }
    this.factory = factory;
    this.local = local;
    this.timeout = timeout;
    this.onFailure = onFailure;
    this.headers = headers;
    this.timer = timer;
    this.report = new FailureReport(registry);
    this.resolverBeans = resolverBeans;
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
        .map(
            decision -> {
              report.decided(routeId, RedisBreakers.open(route.limiter));
              if (decision.isKeyOverflow()) {
                report.keyOverflow(routeId);
              }
              return new Response(
                  decision.allowed(), headersOf(routeId, route, route.limiter, key, decision));
            })
        .onErrorResume(e -> Mono.just(failed(routeId, route, key, e)))
        .transform(answer -> KeptAliveConnections.refusedElsewhere(answer, timer));
  }

  /**
   * The headers of {@code decision} on {@code key} by {@code limiter}: a key on a plan (as the
   * limiter tells it) is told its plan's binding limit, named by the route, never the route's
   * default limits, even where they are equal.
   */
  private Map<String, String> headersOf(
      String routeId,
      RouteLimiter route,
      KeyedRateLimiter<String> limiter,
      String key,
      Decision decision) {
    if (headers) {
      return GatewayHeaders.of(routeId, route, limiter, key, decision);
    }
    return decision.allowed() ? Map.of() : GatewayHeaders.retryAfterOnly(decision);
  }

  /**
   * The answer to a decision of {@code key} that failed with {@code error}: a refusal for a key the
   * limiter rejected (never a grant), else the failure policy's.
   */
  private Response failed(String routeId, RouteLimiter route, String key, Throwable error) {
    Throwable cause = unwrap(error);
    if (cause instanceof IllegalArgumentException invalid) {
      report.invalidKey(routeId, invalid);
      return new Response(false, GatewayHeaders.retryAfterOnePolicy());
    }
    Response answer =
        switch (onFailure) {
          case ALLOW -> new Response(true, Map.of());
          case REFUSE -> new Response(false, GatewayHeaders.retryAfterOnePolicy());
          case LOCAL -> decideLocally(routeId, route, key);
        };
    report.failed(routeId, cause, answer.isAllowed());
    return answer;
  }

  /** The route's in-memory decision, with its plans, as {@link FailurePolicy#LOCAL} makes it. */
  private Response decideLocally(String routeId, RouteLimiter route, String key) {
    try {
      KeyedRateLimiter<String> local = route.local();
      Decision decision = local.decide(key, 1);
      return new Response(decision.allowed(), headersOf(routeId, route, local, key, decision));
    } catch (RuntimeException e) {
      return new Response(false, GatewayHeaders.retryAfterOnePolicy());
    }
  }

  private static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
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

  /** The route's limiter for {@code config}, rebuilt only if its limits or plans changed. */
  private RouteLimiter routeLimiter(String routeId, Config config) {
    RouteLimiter current = routes.get(routeId);
    if (current != null && current.config == config) {
      return current;
    }
    RouteTerms terms = RouteTerms.of(routeId, config, resolverBeans);
    return routes.compute(
        routeId,
        (id, existing) -> {
          if (existing != null && existing.terms.signature().equals(terms.signature())) {
            return existing.boundTo(config);
          }
          String rule = "gateway." + id;
          List<Limit> limits = terms.limits();
          KeyedRateLimiter<String> limiter = create(factory, id, terms);
          if (limiter == null) {
            throw new IllegalArgumentException(
                "route " + id + ": the limiter factory returned no limiter for " + limits);
          }
          return new RouteLimiter(
              config,
              terms,
              GatewayHeaders.policyNames(id, limits),
              limiter,
              () -> local.create(rule, limits, false, terms.plans()));
        });
  }

  /**
   * The limiter {@code factory} makes for a route's terms.
   *
   * @throws IllegalArgumentException naming the route's plans argument if the backend cannot give
   *     keys plans
   */
  private static KeyedRateLimiter<String> create(
      RateLimiterFactory factory, String routeId, RouteTerms terms) {
    try {
      return factory.create("gateway." + routeId, terms.limits(), false, terms.plans());
    } catch (UnsupportedOperationException e) {
      throw new IllegalArgumentException(
          "route " + routeId + ": " + CONFIGURATION_PROPERTY_NAME + ".plans: " + e.getMessage(), e);
    }
  }

  /**
   * One route's configuration: its limits, each {@code permits}, {@code window} and optionally
   * {@code precision}, for keys on no plan; and its plans, in the shape of the starter's rules:
   * {@code plans.PLAN.limits}, {@code plan-keys.PLAN} (the keys on each plan, as the route's key
   * resolver makes them) and {@code plan-resolver} (the name of a {@code PlanResolver<String>}
   * bean, asked first). Bound from the route's filter arguments; not thread-safe until bound.
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
     * Adds the limit of {@code permits} per {@code window} at the default precision, for code that
     * configures routes directly.
     */
    public Config limit(long permits, Duration window) {
      return limit(permits, window, null);
    }

    /**
     * Adds the limit of {@code permits} per {@code window} tracked in buckets of {@code precision}
     * (null: the default), for code that configures routes directly.
     */
    public Config limit(long permits, Duration window, Duration precision) {
      LimitSpec spec = new LimitSpec();
      spec.setPermits(permits);
      spec.setWindow(window);
      spec.setPrecision(precision);
      limits.add(spec);
      return this;
    }

    /**
     * Adds the limit of {@code permits} per {@code window} tracked in buckets of {@code precision}
     * (null: the default) to plan {@code name}, for code that configures routes directly.
     */
    public Config plan(String name, long permits, Duration window, Duration precision) {
      LimitSpec spec = new LimitSpec();
      spec.setPermits(permits);
      spec.setWindow(window);
      spec.setPrecision(precision);
      getPlans().computeIfAbsent(name, n -> new PlanProperties()).getLimits().add(spec);
      return this;
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
            spec.getPermits()
                + " per "
                + spec.getWindow()
                + (spec.getPrecision() == null ? "" : " (precision " + spec.getPrecision() + ")"));
      }
      return "Config" + shown + (getPlans().isEmpty() ? "" : " plans " + getPlans().keySet());
    }
  }
}
