package io.slidingwindow.spring;

import io.slidingwindow.servlet.ClientIpResolver;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Map;
import org.springframework.web.servlet.HandlerMapping;

/**
 * What a {@link RateLimit#key()} expression reads: the root object of its evaluation. Properties
 * {@code clientIp}, {@code principal} (the name, or null), {@code pathVariables} (a map), {@code
 * method}, {@code path}, {@code request}, and the method {@code header(name)}. The same values are
 * also variables: {@code #clientIp}, {@code #principal}, {@code #pathVariables}, {@code #request}.
 * One instance per request; not shared between threads.
 */
public final class RateLimitKeyContext {

  private final HttpServletRequest request;
  private final ClientIpResolver clientIpResolver;

  RateLimitKeyContext(HttpServletRequest request, ClientIpResolver clientIpResolver) {
    this.request = request;
    this.clientIpResolver = clientIpResolver;
  }

  /** The request. */
  public HttpServletRequest getRequest() {
    return request;
  }

  /** The client address, trusted proxies taken into account. */
  public String getClientIp() {
    return clientIpResolver.resolve(request);
  }

  /** The authenticated principal's name, or null. */
  public String getPrincipal() {
    Principal principal = request.getUserPrincipal();
    return principal == null ? null : principal.getName();
  }

  /** The URI template variables of the matched handler, such as {@code id} of {@code /orders/{id}}. */
  public Map<String, String> getPathVariables() {
    Object vars = request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
    if (vars instanceof Map<?, ?> map) {
      @SuppressWarnings("unchecked")
      Map<String, String> typed = (Map<String, String>) map;
      return typed;
    }
    return Map.of();
  }

  /** The HTTP method. */
  public String getMethod() {
    return request.getMethod();
  }

  /** The request URI without the query. */
  public String getPath() {
    return request.getRequestURI();
  }

  /** The first value of header {@code name}, or null. */
  public String header(String name) {
    return request.getHeader(name);
  }
}
