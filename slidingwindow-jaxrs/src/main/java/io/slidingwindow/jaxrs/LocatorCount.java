package io.slidingwindow.jaxrs;

import jakarta.annotation.Priority;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.container.ContainerResponseFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;

/**
 * Counts, on its response, a request that ran a sub-resource locator and reached no resource
 * method: the locator threw (a lookup of an unknown token answering 404), or the class it returned
 * has no method for the request (405). The runtime calls a locator while it matches the request,
 * before any filter bound to a method, and binds none to the locator, so without this such requests
 * could run the locator without limit. Such a request is counted by the rules of every limited
 * resource method of the classes the locator may have returned (see {@link LocatorTargets}: the
 * class it declares; for a contract, the contract and the known classes implementing it; the
 * classes it was seen returning) and of the sub-resources the request passed through, whose own
 * locator it ran (the matched resources but the root, by their real classes), each once, as {@link
 * MethodRateLimitFilter} counts a request another filter ended: if one refuses, its 429 replaces
 * the answer. The locator is found from the matched URIs: the last one the runtime matched, less
 * the one before it, decoded or as sent (RESTEasy takes {@code guess%2F1} for one segment), is what
 * the locator's {@code @Path} took, among the locators of the resource matched at the URI before it
 * (not those of a class the locator returned, which Jersey lists too); if the request's path ends
 * there and a resource method's {@code @Path} of the same class takes it that surely comes first on
 * Jersey and RESTEasy (see {@link PathTemplate#before}), the runtime chose that method and no
 * locator ran (a resource method matches the whole rest of the path, so a path that goes on, {@code
 * /shares/guess/items}, can only have been taken by the locator). What a locator that declares no
 * concrete class returns is learned from the requests that reach a method through it. Whether a
 * request reached a resource method is asked of the runtime, through the injected {@link
 * ResourceInfo} and of a {@link Marker}, a request filter of the lowest priority, either being
 * enough: so a request that a filter of the application ends after matching is not counted here
 * whatever its priority (the runtime says), nor one whose response is completed on another thread
 * (the marker says), as {@link MethodRateLimitFilter} counts them. An {@code OPTIONS} request that
 * the runtime answers itself, with no method of the application (RESTEasy below a locator; Jersey
 * has a resource method of its own for it), is no attempt on the resource and is not counted,
 * unless its answer is an error: the locator threw. Cost per request: one request property per
 * matched request, and on its response the matched resources and one {@code ClassValue} look-up per
 * sub-resource among them (URI matching only below a locator that declares no concrete class, for a
 * class not yet noted); one {@code ResourceInfo} call on the response of an unmarked one (RESTEasy:
 * a thread-local look-up); the lookup of the locator, and of the classes it may have returned, only
 * for a request that matched a resource and no method. No lock. Thread-safe.
 */
@Priority(Priorities.AUTHORIZATION + 100)
final class LocatorCount implements ContainerResponseFilter {

  /** The request property that says the request reached a resource method. */
  private static final String MATCHED = LocatorCount.class.getName() + ".matched";

  /**
   * A locator: its template, where its declared return type leads (null: nowhere), and the classes
   * it has been seen returning to a request that reached one of their resource methods.
   */
  private record Locator(PathTemplate template, ResourceWalk.Lead lead, Set<Class<?>> seen) {}

  /** A resource class's locators and the templates of its resource methods. */
  private record Owner(List<Locator> locators, List<PathTemplate> methods, boolean learns) {}

  private final BiFunction<Method, Method, MethodRateLimitFilter> filters;

  /** The classes a locator may have returned. */
  final LocatorTargets targets = new LocatorTargets();

  private final ClassValue<Owner> owners =
      new ClassValue<>() {
        @Override
        protected Owner computeValue(Class<?> type) {
          return owner(type);
        }
      };

  /**
   * @param filters the filter of a resource method and the method carrying its annotation, as the
   *     feature builds it for the runtime; may throw {@link IllegalArgumentException}
   */
  LocatorCount(BiFunction<Method, Method, MethodRateLimitFilter> filters) {
    this.filters = filters;
  }

  /** What the runtime says of the request being answered; null if it injects nothing. */
  @Context private ResourceInfo info;

  private final Marker marker = new Marker();

  /**
   * The filter to register with it, which marks each request that reached a resource method (with
   * the runtime's {@link ResourceInfo}, the two together decide).
   */
  ContainerRequestFilter marker() {
    return marker;
  }

  /** Marks a request that reached a resource method, before any other filter can end it. */
  @Priority(Integer.MIN_VALUE)
  static final class Marker implements ContainerRequestFilter {
    @Override
    public void filter(ContainerRequestContext request) {
      request.setProperty(MATCHED, Boolean.TRUE);
    }
  }

  @Override
  public void filter(ContainerRequestContext request, ContainerResponseContext response) {
    if (reachedMethod(request)) {
      try {
        learn(request.getUriInfo());
      } catch (RuntimeException e) {
        // a runtime that cannot say (a thread without its context): nothing learned
      }
      return;
    }
    if ("OPTIONS".equals(request.getMethod())
        && response.getStatusInfo().getFamily() == Response.Status.Family.SUCCESSFUL) {
      return; // answered by the runtime, without the locator failing: no attempt on the resource
    }
    UriInfo uri = request.getUriInfo();
    List<String> uris = uri.getMatchedURIs();
    List<Object> resources = uri.getMatchedResources();
    if (uris.size() < 2 || resources.isEmpty()) {
      return;
    }
    // A resource method matches the whole rest of the path: if the path goes on past what the
    // last match took, no method of that class can have taken it, only a locator.
    boolean pathGoesOn = goesOn(uri.getPath(), uris.get(0));
    // The last step was taken by a locator of the resource matched at the URI before it. Each
    // matched resource has its URI, counted from the root, and a locator that returned adds its
    // class (Jersey; RESTEasy not when it has no method for the request) but no URI: the owner is
    // resources[0] if the locator threw, resources[1] if what it returned is listed. Trying the
    // innermost first matched a returned class's own locators against the step that led to it.
    // (A URI matched without its resource, which neither runtime does, leaves the innermost.)
    int at = Math.max(0, resources.size() - uris.size() + 1);
    Owner owner = owners.get(resources.get(at).getClass());
    List<Locator> locators = new ArrayList<>(1);
    addLocatorsTaking(locators, owner, uris, uri.getMatchedURIs(false), 0, pathGoesOn);
    if (locators.isEmpty()) {
      return;
    }
    // The locator the runtime ran is the one whose template it prefers; where templates tie,
    // each may be it: counted by the targets of all of them, so that a sibling declared to
    // return Object never hides a limited one.
    List<Object> levels = resources.subList(0, resources.size() - 1);
    Map<Method, Method[]> byAnnotation = new LinkedHashMap<>();
    for (Locator locator : locators) {
      for (Method[] pair : targets.limited(locator.lead(), locator.seen(), levels)) {
        byAnnotation.putIfAbsent(pair[1], pair);
      }
    }
    count(byAnnotation.values(), request, response);
  }

  /**
   * Notes, for a request that reached a resource method, which class each locator that leads to no
   * concrete class returned: each matched resource and the one that located it, whose locator took
   * the difference of two successive matched URIs. Only owners with such a locator are looked at.
   */
  private void learn(UriInfo uri) {
    List<Object> resources = uri.getMatchedResources();
    for (int j = 0; j + 1 < resources.size(); j++) {
      Owner owner = owners.get(resources.get(j + 1).getClass());
      if (!owner.learns()) {
        continue;
      }
      Class<?> returned = resources.get(j).getClass();
      if (!unnoted(owner, returned)) {
        continue; // noted already wherever it could be: no path to match (the usual case)
      }
      // noted for the locators the runtime may have run for each step only, as they are counted
      List<Locator> locators = new ArrayList<>();
      List<String> uris = uri.getMatchedURIs();
      List<String> sent = uri.getMatchedURIs(false);
      for (int k = 0; k + 1 < uris.size(); k++) {
        addLocatorsTaking(locators, owner, uris, sent, k, true);
      }
      for (Locator locator : locators) {
        if (mayNote(locator, returned)) {
          locator.seen().add(returned);
        }
      }
    }
  }

  /** Whether some locator of {@code owner} could note {@code returned} and has not yet. */
  private static boolean unnoted(Owner owner, Class<?> returned) {
    for (Locator locator : owner.locators()) {
      if (mayNote(locator, returned)) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code locator} notes what it returns, may return {@code returned}, and has not yet.
   */
  private static boolean mayNote(Locator locator, Class<?> returned) {
    return locator.seen() != null
        && !locator.seen().contains(returned)
        && (locator.lead() == null || locator.lead().type().isAssignableFrom(returned));
  }

  /**
   * Whether the marker saw {@code request} reach a resource method, or the runtime says it matched
   * one: either is enough (the marker covers a response completed on another thread, where a
   * runtime's {@code ResourceInfo} may answer null; the runtime covers a filter that ends the
   * request before the marker runs).
   */
  private boolean reachedMethod(ContainerRequestContext request) {
    if (request.getProperty(MATCHED) != null) {
      return true;
    }
    ResourceInfo resource = info;
    if (resource == null) {
      return false;
    }
    try {
      return resource.getResourceMethod() != null;
    } catch (RuntimeException e) {
      return true; // a runtime that cannot say (a thread without its context): count nothing here
    }
  }

  /**
   * What the matched URI at {@code k} adds to the one after it, without outer slashes: what the
   * locator that led there took; null if there is no such pair or it does not go on from there.
   */
  private static String step(List<String> uris, int k) {
    if (k + 1 >= uris.size()) {
      return null;
    }
    String inner = PathTemplate.strip(uris.get(k));
    String outer = PathTemplate.strip(uris.get(k + 1));
    return inner.startsWith(outer) ? PathTemplate.strip(inner.substring(outer.length())) : null;
  }

  /**
   * Whether {@code path}, the request's, goes on past {@code matched}, the last URI matched: by
   * more than slashes, or by two slashes or more (a resource method takes one past its template,
   * and both runtimes run a locator for {@code guess//} beside a method {@code {name}}).
   */
  private static boolean goesOn(String path, String matched) {
    if (!PathTemplate.strip(path).equals(PathTemplate.strip(matched))) {
      return true;
    }
    int end = path.length();
    return end > 1 && path.charAt(end - 1) == '/' && path.charAt(end - 2) == '/';
  }

  /**
   * Adds to {@code out} the locators of {@code owner} that may have taken the step from the matched
   * URI at {@code k + 1} to the one at {@code k}, {@code decoded} or as {@code sent}: the runtime
   * matched the path as sent (RESTEasy takes {@code guess%2F1} for one segment), so the templates
   * are matched against both spellings of what the step took.
   */
  private static void addLocatorsTaking(
      List<Locator> out,
      Owner owner,
      List<String> decoded,
      List<String> sent,
      int k,
      boolean pathGoesOn) {
    String taken = step(decoded, k);
    addLocatorsTaking(out, owner, taken, pathGoesOn);
    String asSent = step(sent, k);
    if (asSent != null && !asSent.equals(taken)) {
      addLocatorsTaking(out, owner, asSent, pathGoesOn);
    }
  }

  /**
   * Adds to {@code out} the locators of {@code owner} whose templates take {@code taken} (if not
   * null) that the runtime may have run: those that no other taking it surely comes before (see
   * {@link PathTemplate#before}), leaving out each that a resource method takes it from whose
   * template surely comes first.
   */
  private static void addLocatorsTaking(
      List<Locator> out, Owner owner, String taken, boolean pathGoesOn) {
    if (taken == null) {
      return;
    }
    int from = out.size();
    next:
    for (Locator locator : owner.locators()) {
      PathTemplate template = locator.template();
      if (!template.pattern().matcher(taken).matches()) {
        continue;
      }
      for (PathTemplate method : pathGoesOn ? List.<PathTemplate>of() : owner.methods()) {
        if (method.before(template, true) && method.pattern().matcher(taken).matches()) {
          continue next;
        }
      }
      out.add(locator);
    }
    // each order is a strict partial one: any order of removal leaves those none comes before
    for (int i = out.size() - 1; i >= from && out.size() > from + 1; i--) {
      for (int j = from; j < out.size(); j++) {
        if (out.get(j).template().before(out.get(i).template(), false)) {
          out.remove(i);
          break;
        }
      }
    }
  }

  private void count(
      Collection<Method[]> limitedMethods,
      ContainerRequestContext request,
      ContainerResponseContext response) {
    Set<MethodRateLimitFilter> counted = new LinkedHashSet<>();
    for (Method[] limited : limitedMethods) {
      MethodRateLimitFilter filter;
      try {
        filter = filters.apply(limited[0], limited[1]);
      } catch (IllegalArgumentException e) {
        continue; // a bad annotation: the runtime's own configuration reports it
      }
      if (counted.add(filter) && filter.countOnResponse(request, response)) {
        break;
      }
    }
    JaxrsExchange.answer(request, response);
  }

  private static Owner owner(Class<?> type) {
    List<Locator> locators = new ArrayList<>();
    List<PathTemplate> methods = new ArrayList<>();
    boolean learns = false;
    for (Method method : LocatorTargets.publicMethods(type)) {
      Path path = path(type, method);
      if (path == null) {
        continue;
      }
      PathTemplate template = PathTemplate.of(path.value());
      if (template == null) {
        continue;
      }
      if (RateLimitSearch.resourceMethod(type, method)) {
        methods.add(template);
      } else {
        ResourceWalk.Lead lead = ResourceWalk.lead(method.getGenericReturnType());
        boolean concrete = lead != null && lead.concrete();
        learns |= !concrete;
        locators.add(new Locator(template, lead, concrete ? null : ConcurrentHashMap.newKeySet()));
      }
    }
    return new Owner(List.copyOf(locators), List.copyOf(methods), learns);
  }

  /** The {@code @Path} of {@code method}, or of the same method of a supertype of {@code type}. */
  private static Path path(Class<?> type, Method method) {
    Path own = method.getAnnotation(Path.class);
    if (own != null) {
      return own;
    }
    Set<Class<?>> seen = new LinkedHashSet<>();
    List<Class<?>> pending = new ArrayList<>(List.of(type));
    while (!pending.isEmpty()) {
      Class<?> current = pending.remove(0);
      if (current == null || current == Object.class || !seen.add(current)) {
        continue;
      }
      try {
        Path found =
            current
                .getDeclaredMethod(method.getName(), method.getParameterTypes())
                .getAnnotation(Path.class);
        if (found != null) {
          return found;
        }
      } catch (NoSuchMethodException e) {
        // not declared here
      }
      pending.add(current.getSuperclass());
      pending.addAll(List.of(current.getInterfaces()));
    }
    return null;
  }
}
