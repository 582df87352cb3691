package io.slidingwindow.servlet;

import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.RequestPaths;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import java.util.Objects;

/**
 * What each enforcer saw of a request (its method and path) and which of its rules applied to it,
 * kept as a request attribute so that the request can be enforced once more where its handler is
 * about to run ({@link RateLimitEnforcer#recheck}): a filter after the rate limit filter may have
 * changed the method (a method override) or the path (a wrapper that rewrites it), so that a rule
 * that did not apply when the filter looked applies to the request the handler gets.
 *
 * <p>The looks of one enforcer at a request share one set of applied rules ({@link #appliedOf}), so
 * that an enforcer that runs twice on a request (two filters over it, or an application calling
 * {@link RateLimitEnforcer#enforce} besides the filter) counts it by each rule once. That holds
 * over all the request's dispatches: a forward, include, error or async dispatch that an enforcer
 * runs on (a filter registered for it) is part of the client's request, and counts it only by the
 * rules that apply to it there and applied in no earlier dispatch (those of a forward's own path,
 * say). The error page of a request that an enforcer refused is counted by no rule, of that
 * enforcer or another ({@link #isErrorPageOfRefusal}): it is not the client's request going on, and
 * a rule after the refusing one, or one over the error page's path, would count a request that was
 * refused. Any other dispatch after a refusal (an async dispatch that a filter of the application
 * started before the refusal, say) runs a handler, and is counted as usual; so is the error page
 * shown when that handler fails (its status is not the refusal's, or an enforcer let the handler's
 * dispatch through after the refusal).
 *
 * @param enforcer the enforcer that looked
 * @param method the method it saw
 * @param uri the request URI it saw
 * @param servletPath the servlet path it saw, null if the container gave none or would not decode
 * @param pathInfo the path info it saw, null if none
 * @param applied the enforcer's rules that applied to the request so far (its core's); added to
 * @param earlier the look of an enforcer that ran before on the same request, or null
 */
record Look(
    RateLimitEnforcer enforcer,
    String method,
    String uri,
    String servletPath,
    String pathInfo,
    EnforcementCore.Applied applied,
    Look earlier) {

  private static final String ATTRIBUTE = Look.class.getName();

  private static final String REFUSED = Look.class.getName() + ".refused";

  private static final String SETTLER = Look.class.getName() + ".settler";

  /**
   * Marks {@code request} as refused by an enforcer with {@code status}, unless in an include
   * dispatch (whose status the container ignores, so that the request goes on and is not refused).
   */
  static void refused(HttpServletRequest request, int status) {
    if (request.getDispatcherType() != DispatcherType.INCLUDE) {
      request.setAttribute(REFUSED, status);
    }
  }

  /**
   * Forgets the refusal of {@code request}, whose dispatch (not an error page, not an include) an
   * enforcer let through to a handler: an error page after it is that handler's, not the refusal's.
   */
  static void handled(HttpServletRequest request) {
    DispatcherType type = request.getDispatcherType();
    if (type != DispatcherType.ERROR
        && type != DispatcherType.INCLUDE
        && request.getAttribute(REFUSED) != null) {
      request.removeAttribute(REFUSED);
    }
  }

  /**
   * Whether {@code request} is in a forward or include dispatch: one that a dispatch of the same
   * request runs inside, which ends after it with the final status.
   */
  static boolean isNested(HttpServletRequest request) {
    DispatcherType type = request.getDispatcherType();
    return type == DispatcherType.FORWARD || type == DispatcherType.INCLUDE;
  }

  /**
   * Marks {@code request} as having a settler around what runs now ({@code mark} true: a rate limit
   * filter in a dispatch that is not nested, which settles once its chain returns) or restores the
   * mark as it was.
   *
   * @return the mark as it was, for the restoring call
   */
  static Object settlerAround(HttpServletRequest request, Object mark) {
    Object previous = request.getAttribute(SETTLER);
    request.setAttribute(SETTLER, mark);
    return previous;
  }

  /**
   * Whether a settling call in the dispatch {@code request} is in leaves the settling to the
   * dispatch around it: an include always (its status is not the answer's; the dispatch around it
   * settles, or nothing does and the permits stay counted), a forward only when a rate limit filter
   * is around it (otherwise the forward settles itself: its answer is closed when it returns, with
   * its status final).
   */
  static boolean defersSettling(HttpServletRequest request) {
    DispatcherType type = request.getDispatcherType();
    return type == DispatcherType.INCLUDE
        || type == DispatcherType.FORWARD && request.getAttribute(SETTLER) != null;
  }

  /**
   * Whether {@code request} is in an error dispatch for the status an enforcer refused it with (a
   * 429, or a 400 for its path), in that dispatch or an earlier one that no handler ran after: the
   * error page that the container shows for the refusal, part of a refused request, which no rule
   * counts. The error page of another status (a handler that ran in a later asynchronous dispatch
   * and failed) is counted as usual.
   */
  static boolean isErrorPageOfRefusal(HttpServletRequest request) {
    return request.getDispatcherType() == DispatcherType.ERROR
        && request.getAttribute(REFUSED) instanceof Integer status
        && request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE) instanceof Number shown
        && shown.intValue() == status;
  }

  /**
   * The rules of {@code enforcer} applied to {@code request} so far, in this dispatch or an earlier
   * one of the same request, to add to: the set of the enforcer's earlier look; null if it never
   * looked at the request.
   */
  static EnforcementCore.Applied appliedOf(RateLimitEnforcer enforcer, HttpServletRequest request) {
    for (Look look = latest(request); look != null; look = look.earlier) {
      if (look.enforcer == enforcer) {
        return look.applied;
      }
    }
    return null;
  }

  /** Keeps what {@code enforcer} saw of {@code request} and the rules in {@code applied}. */
  static void keep(
      RateLimitEnforcer enforcer,
      HttpServletRequest request,
      String method,
      EnforcementCore.Applied applied) {
    request.setAttribute(
        ATTRIBUTE,
        new Look(
            enforcer,
            method,
            request.getRequestURI(),
            servletPathOf(request),
            request.getPathInfo(),
            applied,
            latest(request)));
  }

  private static Look latest(HttpServletRequest request) {
    return request.getAttribute(ATTRIBUTE) instanceof Look known ? known : null;
  }

  /**
   * Enforces, on {@code request} as it is now, the rules of every enforcer that looked at it before
   * which apply now and did not then; nothing if its method and path are those the enforcer saw. Of
   * the looks that share a set of applied rules (one enforcer's in the request dispatch), only the
   * newest is looked at: it saw the request last, and every rule applied by the others is in the
   * set, so that none is applied twice.
   *
   * @return true to go on; false once a refusal was written
   */
  static boolean recheck(HttpServletRequest request, HttpServletResponse response)
      throws IOException {
    if (request.getDispatcherType() != DispatcherType.REQUEST
        || !(request.getAttribute(ATTRIBUTE) instanceof Look latest)) {
      return true; // a forward, include, error or async dispatch was counted as its request
    }
    for (Look look = latest; look != null; look = look.earlier) {
      if (!latest.sharesWithNewer(look)
          && look.changed(request)
          && !look.enforcer.enforceAgain(request, response, look.applied, false)) {
        return false;
      }
    }
    return true;
  }

  /** Whether a look newer than {@code older}, from this one on, shares its applied rules. */
  private boolean sharesWithNewer(Look older) {
    for (Look look = this; look != older; look = look.earlier) {
      if (look.applied == older.applied) {
        return true;
      }
    }
    return false;
  }

  /**
   * Whether {@code request}'s method or path differs from what the enforcer saw; allocates none.
   */
  private boolean changed(HttpServletRequest request) {
    return !method.equals(request.getMethod())
        || !uri.equals(request.getRequestURI())
        || !Objects.equals(servletPath, servletPathOf(request))
        || !Objects.equals(pathInfo, request.getPathInfo());
  }

  /**
   * Every reading of the request's path within the application that a rule is matched against (see
   * {@link RequestPaths}): the container's (decoded and normalized), then the raw URI's.
   */
  static List<String> pathsOf(HttpServletRequest request) {
    String containerPath;
    try {
      String servletPath = request.getServletPath();
      String pathInfo = request.getPathInfo();
      containerPath = (servletPath == null ? "" : servletPath) + (pathInfo == null ? "" : pathInfo);
    } catch (RuntimeException e) {
      containerPath = null; // a container that will not decode an ambiguous URI
    }
    return RequestPaths.readings(containerPath, request.getRequestURI(), request.getContextPath());
  }

  private static String servletPathOf(HttpServletRequest request) {
    try {
      return request.getServletPath();
    } catch (RuntimeException e) {
      return null; // a container that will not decode an ambiguous URI
    }
  }
}
