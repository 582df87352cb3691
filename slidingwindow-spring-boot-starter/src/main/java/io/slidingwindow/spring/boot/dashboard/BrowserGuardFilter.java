package io.slidingwindow.spring.boot.dashboard;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.http.server.PathContainer;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@link BrowserGuard} on a servlet server: answers 403 a request to the {@code slidingwindow}
 * endpoint's write operations, or to its reads of keys and their state, that a web page of another
 * origin, or at a host name, may have sent. Early among the filters, before the application's
 * security.
 */
final class BrowserGuardFilter extends OncePerRequestFilter implements Ordered {

  private final BrowserGuard guard;

  BrowserGuardFilter(BrowserGuard guard) {
    this.guard = guard;
  }

  @Override
  protected void doFilterInternal(
      HttpServletRequest request, HttpServletResponse response, FilterChain chain)
      throws ServletException, IOException {
    if (guard.guards(request.getMethod(), PathContainer.parsePath(request.getRequestURI()))) {
      String refusal =
          guard.refusal(
              request.getMethod(),
              request.getScheme(),
              request.getHeader("Origin"),
              request.getHeader("Sec-Fetch-Site"),
              host(request),
              forwardedHosts(request));
      if (refusal != null) {
        byte[] body = guard.refuse(request.getMethod(), refusal);
        response.setStatus(HttpServletResponse.SC_FORBIDDEN);
        response.setContentType("application/json");
        response.setContentLength(body.length);
        response.getOutputStream().write(body);
        return;
      }
    }
    chain.doFilter(request, response);
  }

  /**
   * The request's {@code Host}; null for an HTTP/1.x request without one (HTTP/1.0 allows that, and
   * a browser never sends it), whatever name the server put in its place (Tomcat: its own, by a
   * reverse lookup of the local address, or the connector's {@code proxyName}); else the server's
   * name and port, which over HTTP/2 are the {@code :authority} that Tomcat keeps out of the
   * headers.
   */
  private static String host(HttpServletRequest request) {
    String host = request.getHeader("Host");
    if (host != null || request.getProtocol().startsWith("HTTP/1.")) {
      return host;
    }
    return request.getServerName() + ":" + request.getServerPort();
  }

  /**
   * The host names a proxy says the request was sent to ({@link BrowserGuard#forwardedHosts}), and
   * the server name of a request that a filter before this one wrapped and gave another name than
   * its {@code Host}'s: Spring's {@code ForwardedHeaderFilter} ({@code
   * server.forward-headers-strategy=framework}) takes the forwarded headers off the request and
   * answers with the forwarded host there. The container's own request is not asked: its server
   * name may be its connector's {@code proxyName}, which says nothing of where the request went.
   */
  private static List<String> forwardedHosts(HttpServletRequest request) {
    List<String> hosts =
        new ArrayList<>(
            BrowserGuard.forwardedHosts(
                Collections.list(request.getHeaders("X-Forwarded-Host")),
                Collections.list(request.getHeaders("Forwarded"))));
    String host = request.getHeader("Host");
    if (host != null && request instanceof HttpServletRequestWrapper) {
      String name = request.getServerName();
      if (name.indexOf(':') >= 0 && !name.startsWith("[")) {
        name = "[" + name + "]";
      }
      int port = request.getServerPort();
      boolean usual =
          port == ("https".equalsIgnoreCase(request.getScheme()) ? 443 : 80) || port <= 0;
      String authority = usual ? name : name + ":" + port;
      if (!authority.equalsIgnoreCase(host.trim()) && !name.equalsIgnoreCase(host.trim())) {
        hosts.add(authority);
      }
    }
    return hosts;
  }

  @Override
  public int getOrder() {
    return Ordered.HIGHEST_PRECEDENCE + 20;
  }
}
