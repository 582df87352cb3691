package io.slidingwindow.webmvc.internal;

import io.slidingwindow.http.RequestKey;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.spring.RateLimitKeyContext;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import java.util.Map;
import org.springframework.web.servlet.HandlerMapping;

/** What a key expression reads from a servlet request. */
record ServletKeySource(HttpServletRequest request, ClientIpResolver clientIpResolver)
    implements RateLimitKeyContext.Source {

  @Override
  public RequestKey clientIp() {
    return clientIpResolver.key(request);
  }

  @Override
  public String principalName() {
    Principal principal = request.getUserPrincipal();
    return principal == null ? null : principal.getName();
  }

  @Override
  public Map<String, String> pathVariables() {
    Object vars = request.getAttribute(HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE);
    if (vars instanceof Map<?, ?> map) {
      @SuppressWarnings("unchecked")
      Map<String, String> typed = (Map<String, String>) map;
      return typed;
    }
    return Map.of();
  }

  @Override
  public String method() {
    return request.getMethod();
  }

  @Override
  public String path() {
    return request.getRequestURI();
  }

  @Override
  public String header(String name) {
    return request.getHeader(name);
  }
}
