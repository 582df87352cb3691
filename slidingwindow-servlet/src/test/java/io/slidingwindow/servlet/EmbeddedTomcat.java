package io.slidingwindow.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleException;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.apache.tomcat.util.descriptor.web.ErrorPage;
import org.apache.tomcat.util.descriptor.web.FilterDef;
import org.apache.tomcat.util.descriptor.web.FilterMap;

/** A real Tomcat on a free loopback port with one filter before a servlet that answers "ok". */
final class EmbeddedTomcat implements ServletServer {

  private final Tomcat tomcat = new Tomcat();
  private final Connector connector = new Connector();

  EmbeddedTomcat(Filter filter, Path baseDir) throws LifecycleException {
    this(
        filter,
        new HttpServlet() {
          @Override
          protected void service(HttpServletRequest req, HttpServletResponse resp)
              throws IOException {
            resp.setContentType("text/plain");
            resp.getWriter().write("ok");
          }
        },
        false,
        "",
        baseDir);
  }

  /**
   * With {@code servlet} at {@code /*} of the context {@code contextPath} ({@code ""} for the
   * root); lenient, the connector takes backslashes and decodes {@code %2F}, so that more spellings
   * reach the filter. The filter takes the {@code dispatches} named, request dispatches only if
   * none.
   */
  EmbeddedTomcat(
      Filter filter,
      Servlet servlet,
      boolean lenient,
      String contextPath,
      Path baseDir,
      DispatcherType... dispatches)
      throws LifecycleException {
    this(filter, servlet, lenient, contextPath, baseDir, context -> {}, dispatches);
  }

  /** As above, {@code setUp} adding to the context (error pages, say) before the server starts. */
  EmbeddedTomcat(
      Filter filter,
      Servlet servlet,
      boolean lenient,
      String contextPath,
      Path baseDir,
      Consumer<Context> setUp,
      DispatcherType... dispatches)
      throws LifecycleException {
    this(filter, servlet, lenient, contextPath, "/*", baseDir, setUp, dispatches);
  }

  /** As above, the servlet mapped at {@code mapping}. */
  private EmbeddedTomcat(
      Filter filter,
      Servlet servlet,
      boolean lenient,
      String contextPath,
      String mapping,
      Path baseDir,
      Consumer<Context> setUp,
      DispatcherType... dispatches)
      throws LifecycleException {
    tomcat.setBaseDir(baseDir.toString());
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    if (lenient) {
      connector.setAllowBackslash(true);
      connector.setEncodedSolidusHandling("decode");
      connector.setProperty("relaxedPathChars", "\\");
    }
    tomcat.setConnector(connector);
    Context context = tomcat.addContext(contextPath, null);
    Tomcat.addServlet(context, "ok", servlet);
    context.addServletMappingDecoded(mapping, "ok");
    FilterDef def = new FilterDef();
    def.setFilterName("rateLimit");
    def.setFilter(filter);
    context.addFilterDef(def);
    FilterMap map = new FilterMap();
    map.setFilterName("rateLimit");
    map.addURLPattern("/*");
    for (DispatcherType dispatch : dispatches) {
      map.setDispatcher(dispatch.name());
    }
    context.addFilterMap(map);
    setUp.accept(context);
    tomcat.start();
  }

  /** {@code deployment}, its error pages declared as in {@code web.xml}. */
  EmbeddedTomcat(Deployment deployment, Path baseDir) throws LifecycleException {
    this(
        deployment.filter(),
        deployment.servlet(),
        false,
        deployment.contextPath(),
        deployment.mapping(),
        baseDir,
        context -> {
          deployment
              .statusPages()
              .forEach(
                  (status, location) -> {
                    ErrorPage page = new ErrorPage();
                    page.setErrorCode(status);
                    page.setLocation(location);
                    context.addErrorPage(page);
                  });
          deployment
              .exceptionPages()
              .forEach(
                  (type, location) -> {
                    ErrorPage page = new ErrorPage();
                    page.setExceptionType(type.getName());
                    page.setLocation(location);
                    context.addErrorPage(page);
                  });
          if (deployment.async()) {
            ((Wrapper) context.findChild("ok")).setAsyncSupported(true);
            context.findFilterDef("rateLimit").setAsyncSupported("true");
          }
        },
        deployment.dispatches().toArray(DispatcherType[]::new));
  }

  @Override
  public int port() {
    return connector.getLocalPort();
  }

  @Override
  public void close() throws LifecycleException {
    tomcat.stop();
    tomcat.destroy();
  }
}
