package io.slidingwindow.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.BitSet;
import java.util.Objects;

/**
 * What each enforcer saw of a request (its method and path) and which of its rules applied to it,
 * kept as a request attribute so that the request can be enforced once more where its handler is
 * about to run ({@link RateLimitEnforcer#recheck}): a filter after the rate limit filter may have
 * changed the method (a method override) or the path (a wrapper that rewrites it), so that a rule
 * that did not apply when the filter looked applies to the request the handler gets.
 *
 * @param enforcer the enforcer that looked
 * @param method the method it saw
 * @param uri the request URI it saw
 * @param servletPath the servlet path it saw, null if the container gave none or would not decode
 * @param pathInfo the path info it saw, null if none
 * @param applied the enforcer's rules that applied to the request so far, by index; added to
 * @param earlier the look of an enforcer that ran before on the same request, or null
 */
record Look(
    RateLimitEnforcer enforcer,
    String method,
    String uri,
    String servletPath,
    String pathInfo,
    BitSet applied,
    Look earlier) {

  private static final String ATTRIBUTE = Look.class.getName();

  /** Keeps what {@code enforcer} saw of {@code request} and the rules in {@code applied}. */
  static void keep(
      RateLimitEnforcer enforcer, HttpServletRequest request, String method, BitSet applied) {
    Look earlier = request.getAttribute(ATTRIBUTE) instanceof Look known ? known : null;
    request.setAttribute(
        ATTRIBUTE,
        new Look(
            enforcer,
            method,
            request.getRequestURI(),
            servletPathOf(request),
            request.getPathInfo(),
            applied,
            earlier));
  }

  /**
   * Enforces, on {@code request} as it is now, the rules of every enforcer that looked at it before
   * which apply now and did not then; nothing if its method and path are those the enforcer saw.
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
      if (look.changed(request)
          && !look.enforcer.enforceAgain(request, response, look.applied, false)) {
        return false;
      }
    }
    return true;
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

  private static String servletPathOf(HttpServletRequest request) {
    try {
      return request.getServletPath();
    } catch (RuntimeException e) {
      return null; // a container that will not decode an ambiguous URI
    }
  }
}
