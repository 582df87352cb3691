package io.slidingwindow.spring.boot.web;

import java.util.EnumSet;
import java.util.Set;
import org.springframework.boot.web.servlet.DispatcherType;

/**
 * Where the rate limit filter runs, bound from {@code slidingwindow.http}: its order among the
 * application's filters and, on a servlet server, the dispatches it sees. Mutable, as Spring
 * binding needs; read only at start-up.
 */
public class FilterProperties {

  /**
   * The order of the filter among the servlet filters (the web filters, on WebFlux); after Spring
   * Security's (-100) by default.
   */
  private int filterOrder = 0;

  /**
   * The servlet dispatches the filter runs in: REQUEST, and any of ERROR, FORWARD, ASYNC, INCLUDE.
   * ERROR counts an error page under the rules over its path when a filter before this one sent the
   * request there (sendError); FORWARD counts a forward by the rules over the path it goes to. A
   * rule counts a request once across all its dispatches. Servlet only.
   */
  private Set<DispatcherType> filterDispatcherTypes = EnumSet.of(DispatcherType.REQUEST);

  public int getFilterOrder() {
    return filterOrder;
  }

  public void setFilterOrder(int filterOrder) {
    this.filterOrder = filterOrder;
  }

  public Set<DispatcherType> getFilterDispatcherTypes() {
    return filterDispatcherTypes;
  }

  public void setFilterDispatcherTypes(Set<DispatcherType> filterDispatcherTypes) {
    this.filterDispatcherTypes = filterDispatcherTypes;
  }
}
