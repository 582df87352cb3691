package io.slidingwindow.jaxrs;

import io.slidingwindow.Limit;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RefusalReplies;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Application;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.FeatureContext;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Puts {@link RateLimit} on resource methods into effect: when the application starts, each
 * annotated method gets a filter that applies its rule to every request the method is about to
 * handle, after resource matching, so whatever path reached the method is counted; so is a request
 * that a post-matching filter of a priority below {@code AUTHORIZATION + 100} ends before the
 * rule's turn (a 401 for wrong credentials, by {@code abortWith} or a mapped exception), on its
 * response. A request that an {@code @PreMatching} filter ends reaches no method and is not counted
 * here: rules over paths ({@link RateLimitFilter}) count it. A request that ends in a sub-resource
 * locator (a lookup that throws) or right after it (405) is counted on its response by the rules of
 * the classes the locator may have returned and of the sub-resources on the way (see {@link
 * LocatorCount}). A method's annotation may also sit on the same method of a superclass or an
 * interface (the contract-first style): the nearest wins, looked for on the method, then its
 * superclass's, recursively, then its interfaces', in declaration order, as JAX-RS finds a method's
 * other annotations. So an override without the annotation, a container's proxy or a subclass of
 * the application's own, keeps the limit of the method it overrides; only an annotation of its own
 * changes it.
 *
 * <pre>{@code
 * ResourceConfig app = new ResourceConfig(OrderResource.class)
 *     .register(new ServletPeerAddressFilter())
 *     .register(RateLimitFeature.builder().rateLimitHeaders(true).build());
 * }</pre>
 *
 * <p>An annotation whose limits or key cannot be read, whose name another annotated method has
 * already taken, or that would limit nothing because it is on a sub-resource locator or on a method
 * that is no resource method, fails the application's start with an {@link
 * IllegalArgumentException} naming the method. The feature is also a {@link Feature}: when the
 * application starts, it checks the root resource classes the runtime shows it (its configuration's
 * classes and instances, and those of the {@link Application}) and the classes their sub-resource
 * locators are declared to return, recursively, each once. So a root class with nothing but
 * locators, which has no resource method to configure, and a class that only a locator returns,
 * whose methods the runtime may configure only at their first request, are checked at the start
 * too. A locator declared to return an interface or an abstract class leads to what that type
 * declares (limits and keys; not names, which follow the class served); one declared to return a
 * class leads to that class, all of it checked, final or not (an annotation on a plain method fails
 * the start even though a subclass the locator returns might make it a resource method: declare the
 * class returned); one declared to return {@code Object} leads nowhere (a warning names it): the
 * class it returns is checked when the runtime configures its methods, at their first request, too
 * late to stop the start: a bad annotation there is logged once, and the methods it concerns answer
 * every request with 500 (see {@link LateCheck}). A root registered as a proxy subclass that a
 * container generated (defined at run time, or named as CGLIB, Weld, Byte Buddy, Hibernate,
 * Javassist or Quarkus ArC name theirs: see {@link RateLimitSearch#userMethod}) is taken as its
 * user class, so that a default name is the user class's, the same in every instance of the
 * application, and that class reached through a locator too is the same resource. A root that is an
 * interface-based proxy ({@link java.lang.reflect.Proxy}) extends no class of the application, and
 * an annotation on the class behind it cannot be seen: its resource methods that its interfaces do
 * not limit are named in a warning at the start. Methods that take one annotation under one name
 * share its limiter. Each method's rule has its own limiter, created once, whatever number of times
 * the runtime configures the method. Refusals, headers, dry-run, keys that fail (counted under the
 * client's address, as {@link Builder#clientAddresses} finds it, which also groups every key of the
 * method's key table) and fail-open on a failing backend are those of {@link RateLimitFilter}; a
 * request that the filter and an annotation both decide reports both in its headers. Thread-safe.
 */
public final class RateLimitFeature implements DynamicFeature, Feature {

  private static final System.Logger LOG = System.getLogger(RateLimitFeature.class.getName());

  private final Builder settings;
  private final Map<Target, MethodRateLimitFilter> filters = new ConcurrentHashMap<>(); // lock-free
  private final Map<String, Target> names = new HashMap<>();
  private final Set<Class<?>> checked = new HashSet<>();
  // what failed, so that a class or method is not checked again; read without the lock too
  private final Map<Object, IllegalArgumentException> failed = new ConcurrentHashMap<>();
  private final LateCheck late = new LateCheck();
  private final LocatorCount locators = new LocatorCount(this::filterOf);

  /** The application, which the runtime injects before it configures features; null if none. */
  @Context private Application application;

  private RateLimitFeature(Builder settings) {
    this.settings = settings;
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Checks the root resource classes the runtime shows when the application starts, the classes and
   * instances of {@code context}'s configuration (Jersey's registrations and scanned packages) and
   * the classes and singletons of the injected {@link Application} (RESTEasy's resources), and the
   * types their sub-resource locators lead to (see {@link ResourceWalk}).
   *
   * @return true: the feature is enabled
   * @throws IllegalArgumentException naming the method, if one of these classes or a supertype has
   *     {@link RateLimit} on a sub-resource locator or on a method that is no resource method, or
   *     one of their resource methods has one whose limits or key cannot be read or whose name
   *     another has
   */
  @Override
  public boolean configure(FeatureContext context) {
    Set<Class<?>> types = new LinkedHashSet<>();
    Configuration configuration = context.getConfiguration();
    if (configuration != null) {
      addTypes(types, configuration.getClasses(), configuration.getInstances());
    }
    Application app = application;
    if (app != null) {
      addTypes(types, app.getClasses(), singletons(app));
    }
    List<Class<?>> roots = new ArrayList<>();
    for (Class<?> type : types) {
      if (RateLimitSearch.rootResource(type)) {
        roots.add(type);
        String hidden = RateLimitSearch.hiddenBehindInterfaceProxy(type);
        if (hidden != null) {
          LOG.log(System.Logger.Level.WARNING, hidden);
        }
      }
    }
    ResourceWalk walk = ResourceWalk.from(roots);
    for (Class<?> type : walk.classes()) {
      check(type);
    }
    locators.targets.start(walk);
    Map<String, Target> taken = new HashMap<>();
    for (ResourceWalk.Annotated found : walk.annotated()) {
      Target target = Target.of(found.method(), found.annotated());
      Parsed parsed = parse(target);
      if (walk.contract(found.type())) {
        continue; // named after the class the runtime serves, which is not known
      }
      Target other = taken.putIfAbsent(parsed.rule().name(), target);
      if (other != null && !other.annotated().equals(target.annotated())) {
        throw nameTaken(parsed.rule().name(), target, other.where());
      }
    }
    context.register(late.servingMark());
    context.register(locators.marker());
    context.register(locators);
    return true;
  }

  /**
   * A resource method as the runtime hands it over, as its user class declares it (see {@link
   * RateLimitSearch#userMethod}), and the method whose annotation applies.
   */
  private record Target(Method method, Method annotated) {
    static Target of(Method method, Method annotated) {
      return new Target(RateLimitSearch.userMethod(method), annotated);
    }

    /** The method, and the one carrying the annotation when that is another. */
    String where() {
      String own = annotated.getDeclaringClass().getName() + "." + annotated.getName();
      return annotated.equals(method)
          ? own
          : method.getDeclaringClass().getName() + "." + method.getName() + " (from " + own + ")";
    }
  }

  /** What a method's annotation says: its rule and its key. */
  private record Parsed(HttpRule rule, JaxrsKeyResolver keys) {}

  @SuppressWarnings("deprecation") // still how an Application hands over resource instances
  private static Set<Object> singletons(Application app) {
    return app.getSingletons();
  }

  private static void addTypes(
      Set<Class<?>> types, Collection<Class<?>> classes, Collection<Object> instances) {
    if (classes != null) {
      for (Class<?> type : classes) {
        if (type != null) {
          types.add(type);
        }
      }
    }
    if (instances != null) {
      for (Object instance : instances) {
        if (instance != null) {
          types.add(instance.getClass());
        }
      }
    }
  }

  /**
   * Binds the filter of its annotation to a resource method that has one.
   *
   * @throws IllegalArgumentException naming the method, if the method's class or a supertype has
   *     {@link RateLimit} on a sub-resource locator or on a method that is no resource method, or
   *     the method's annotation cannot be read or has a name another has, while the application
   *     starts; once it serves requests, the method gets a filter that answers 500 instead, and the
   *     failure is logged once (see {@link LateCheck})
   */
  @Override
  public void configure(ResourceInfo resourceInfo, FeatureContext context) {
    Method method = resourceInfo.getResourceMethod();
    if (method == null) {
      return;
    }
    Class<?> resourceClass = resourceInfo.getResourceClass();
    Class<?> type = resourceClass == null ? method.getDeclaringClass() : resourceClass;
    locators.targets.know(List.of(type));
    try {
      check(type);
    } catch (IllegalArgumentException e) {
      context.register(late.unusable(e, "the resource methods of " + type.getName()));
      return;
    }
    Method annotated = RateLimitSearch.annotated(resourceClass, method);
    if (annotated != null) {
      try {
        context.register(filterOf(method, annotated));
      } catch (IllegalArgumentException e) {
        context.register(late.unusable(e, type.getName() + "." + method.getName()));
      }
    }
  }

  /**
   * Fails if {@code resourceClass} or a supertype has an annotation that would limit nothing, on a
   * sub-resource locator or on a method that is no resource method.
   */
  private synchronized void check(Class<?> resourceClass) {
    if (checked.contains(resourceClass)) {
      return;
    }
    IllegalArgumentException known = failed.get(resourceClass);
    if (known != null) {
      throw known;
    }
    String misplaced = RateLimitSearch.misplacedReason(resourceClass);
    if (misplaced != null) {
      known = new IllegalArgumentException(misplaced);
      failed.put(resourceClass, known);
      throw known;
    }
    checked.add(resourceClass);
  }

  /** The filter of resource method {@code method}, whose rule {@code annotated} carries. */
  private MethodRateLimitFilter filterOf(Method method, Method annotated) {
    Target target = Target.of(method, annotated);
    MethodRateLimitFilter existing = madeFilterOf(target);
    return existing != null ? existing : newFilterOf(target, annotated);
  }

  /** The filter already made for {@code target}, or null; throws what already failed for it. */
  private MethodRateLimitFilter madeFilterOf(Target target) {
    MethodRateLimitFilter existing = filters.get(target);
    IllegalArgumentException known = existing == null ? failed.get(target) : null;
    if (known != null) {
      throw known;
    }
    return existing;
  }

  private synchronized MethodRateLimitFilter newFilterOf(Target target, Method annotated) {
    MethodRateLimitFilter existing = madeFilterOf(target);
    if (existing != null) {
      return existing;
    }
    Parsed parsed;
    try {
      parsed = parse(target);
    } catch (IllegalArgumentException e) {
      failed.put(target, e);
      throw e;
    }
    String name = parsed.rule().name();
    Target other = names.get(name);
    if (other != null && other.annotated().equals(annotated)) {
      // one annotation, one rule: the methods that take it under one name share its limiter
      MethodRateLimitFilter shared = filters.get(other);
      filters.put(target, shared);
      return shared;
    }
    if (other != null) {
      failed.put(target, nameTaken(name, target, other.where()));
      throw failed.get(target);
    }
    MethodRateLimitFilter filter =
        new MethodRateLimitFilter(
            EnforcementCore.<ContainerRequestContext>builder()
                .limiterFactory(settings.limiterFactory)
                .listener(settings.listener)
                .rateLimitHeaders(settings.rateLimitHeaders)
                .refusal(settings.refusal)
                .clientKey(JaxrsKeyResolver.clientAddress(settings.clientAddresses)::key)
                .rule(parsed.rule(), parsed.keys()::key)
                .build());
    filters.put(target, filter);
    names.put(name, target);
    return filter;
  }

  /**
   * Reads the annotation of {@code target}: its rule, named as the annotation says or {@code
   * SimpleClassName.method} of the method the runtime calls, and its key.
   *
   * @throws IllegalArgumentException if a limit or the key cannot be read, naming the method
   */
  private Parsed parse(Target target) {
    Method method = target.method();
    RateLimit annotation = target.annotated().getAnnotation(RateLimit.class);
    String name =
        annotation.name().isEmpty()
            ? method.getDeclaringClass().getSimpleName() + "." + method.getName()
            : annotation.name();
    try {
      HttpRule.Builder builder =
          RateLimitKeys.rule(name, annotation.name().isEmpty(), method.getDeclaringClass())
              .countRefusedAttempts(annotation.countRefusedAttempts())
              .dryRun(annotation.dryRun());
      for (String limit : annotation.limits()) {
        builder.limit(Limit.parse(limit));
      }
      return new Parsed(
          builder.build(),
          RateLimitKeys.of(annotation.key(), settings.clientAddresses, settings.resolvers));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "@RateLimit on " + target.where() + ": " + e.getMessage(), e);
    }
  }

  private static IllegalArgumentException nameTaken(String name, Target target, String other) {
    return new IllegalArgumentException(
        "@RateLimit name '" + name + "' of " + target.where() + " is taken by " + other);
  }

  /** Builds a {@link RateLimitFeature}. Not thread-safe. */
  public static final class Builder {
    private RateLimiterFactory limiterFactory = RateLimiterFactory.inMemory();
    private RateLimitListener listener = RateLimitListener.NONE;
    private boolean rateLimitHeaders;
    private ClientAddresses clientAddresses = ClientAddresses.direct();
    private RefusalReplies.Refusal refusal = RefusalReplies.Refusal.DEFAULT;
    private final Map<String, JaxrsKeyResolver> resolvers = new HashMap<>();

    private Builder() {}

    /**
     * Sets the backend, {@link RateLimiterFactory#inMemory()} by default.
     *
     * @throws IllegalArgumentException if {@code limiterFactory} is null
     */
    public Builder limiterFactory(RateLimiterFactory limiterFactory) {
      this.limiterFactory = requireNonNull(limiterFactory, "limiterFactory");
      return this;
    }

    /**
     * Sets the listener (metrics, logs, tracing), none by default.
     *
     * @throws IllegalArgumentException if {@code listener} is null
     */
    public Builder listener(RateLimitListener listener) {
      this.listener = requireNonNull(listener, "listener");
      return this;
    }

    /**
     * Sets whether to send the {@code RateLimit-Policy} and {@code RateLimit} headers; off by
     * default.
     */
    public Builder rateLimitHeaders(boolean rateLimitHeaders) {
      this.rateLimitHeaders = rateLimitHeaders;
      return this;
    }

    /**
     * Sets how client addresses are found (trusted proxies, IPv6 prefix), {@link
     * ClientAddresses#direct()} by default: for the keys {@code ip}, {@code principal} and {@code
     * header:NAME}, the key a request counts under when its key resolver returns null or throws,
     * and the group of every key in a method's key table, whose new keys one client can fill only
     * up to its share.
     *
     * @throws IllegalArgumentException if {@code clientAddresses} is null
     */
    public Builder clientAddresses(ClientAddresses clientAddresses) {
      this.clientAddresses = requireNonNull(clientAddresses, "clientAddresses");
      return this;
    }

    /**
     * Sets how refusals are answered: 429 with an {@code application/problem+json} body by default.
     *
     * @throws IllegalArgumentException if {@code refusal} is null
     */
    public Builder refusal(RefusalReplies.Refusal refusal) {
      this.refusal = requireNonNull(refusal, "refusal");
      return this;
    }

    /**
     * Names a key resolver for {@code key = "resolver:NAME"}.
     *
     * @throws IllegalArgumentException if {@code name} is blank or {@code resolver} is null
     */
    public Builder keyResolver(String name, JaxrsKeyResolver resolver) {
      if (name == null || name.isBlank()) {
        throw new IllegalArgumentException("resolver name must not be blank, was '" + name + "'");
      }
      resolvers.put(name.trim(), requireNonNull(resolver, "resolver"));
      return this;
    }

    /** Builds the feature. */
    public RateLimitFeature build() {
      Builder copy = new Builder();
      copy.limiterFactory = limiterFactory;
      copy.listener = listener;
      copy.rateLimitHeaders = rateLimitHeaders;
      copy.clientAddresses = clientAddresses;
      copy.refusal = refusal;
      copy.resolvers.putAll(resolvers);
      return new RateLimitFeature(copy);
    }

    private static <T> T requireNonNull(T value, String name) {
      if (value == null) {
        throw new IllegalArgumentException(name + " must not be null");
      }
      return value;
    }
  }
}
