package io.slidingwindow.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.Servlet;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * One application as a real deployment describes it, for any of the three containers: one filter
 * (named {@code rateLimit}) over {@code /*} for the dispatches named (request dispatches only if
 * none), before one servlet at {@code mapping} ({@code /*} unless told), both supporting
 * asynchronous processing if {@code async}, and container-level error pages by status and by
 * exception type (what {@code <error-page>} in {@code web.xml} declares), in the context at {@code
 * contextPath} ({@code ""} for the root).
 */
record Deployment(
    Filter filter,
    Servlet servlet,
    Set<DispatcherType> dispatches,
    boolean async,
    Map<Integer, String> statusPages,
    Map<Class<? extends Throwable>, String> exceptionPages,
    String contextPath,
    String mapping) {

  Deployment {
    dispatches = dispatches.isEmpty() ? EnumSet.of(DispatcherType.REQUEST) : Set.copyOf(dispatches);
    statusPages = Map.copyOf(statusPages);
    exceptionPages = Map.copyOf(exceptionPages);
  }

  static Deployment of(Filter filter, Servlet servlet, DispatcherType... dispatches) {
    Set<DispatcherType> types = EnumSet.noneOf(DispatcherType.class);
    types.addAll(java.util.List.of(dispatches));
    return new Deployment(filter, servlet, types, false, Map.of(), Map.of(), "", "/*");
  }

  /** This deployment with asynchronous processing supported by its filter and servlet. */
  Deployment withAsync() {
    return new Deployment(
        filter, servlet, dispatches, true, statusPages, exceptionPages, contextPath, mapping);
  }

  /** This deployment with the error page at {@code location} for {@code status}. */
  Deployment errorPage(int status, String location) {
    Map<Integer, String> pages = new LinkedHashMap<>(statusPages);
    pages.put(status, location);
    return new Deployment(
        filter, servlet, dispatches, async, pages, exceptionPages, contextPath, mapping);
  }

  /** This deployment with the error page at {@code location} for exceptions of {@code type}. */
  Deployment errorPage(Class<? extends Throwable> type, String location) {
    Map<Class<? extends Throwable>, String> pages = new LinkedHashMap<>(exceptionPages);
    pages.put(type, location);
    return new Deployment(
        filter, servlet, dispatches, async, statusPages, pages, contextPath, mapping);
  }

  /**
   * This deployment in the context at {@code contextPath} ({@code ""} for the root), its servlet
   * mapped at {@code mapping} ({@code /api/*}, say); the filter stays over {@code /*}.
   */
  Deployment at(String contextPath, String mapping) {
    return new Deployment(
        filter, servlet, dispatches, async, statusPages, exceptionPages, contextPath, mapping);
  }

  /** The three servlet containers the filter is tested on, each as shipped. */
  enum Container {
    TOMCAT,
    JETTY,
    UNDERTOW;

    /** Starts {@code deployment} in this container ({@code baseDir} is Tomcat's work folder). */
    ServletServer start(Deployment deployment, Path baseDir) throws Exception {
      return switch (this) {
        case TOMCAT -> new EmbeddedTomcat(deployment, baseDir);
        case JETTY -> new EmbeddedJetty(deployment);
        case UNDERTOW -> new EmbeddedUndertow(deployment);
      };
    }
  }
}
