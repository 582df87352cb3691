package io.slidingwindow.servlet;

import jakarta.servlet.Filter;
import jakarta.servlet.Servlet;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.ErrorPageErrorHandler;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.http.UriCompliance;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * A real Jetty 12 on a free loopback port with one filter before a servlet mapped at {@code /*}.
 * Lenient, it takes every URI (compliance UNSAFE, ambiguous URIs decoded): the worst case for a
 * filter that relies on the container.
 */
final class EmbeddedJetty implements ServletServer {

  private final Server server = new Server();
  private final ServerConnector connector;

  EmbeddedJetty(Filter filter, Servlet servlet, boolean lenient) throws Exception {
    this(Deployment.of(filter, servlet), lenient);
  }

  /**
   * {@code deployment}, as shipped; its error pages go to an {@link ErrorPageErrorHandler}, as
   * Jetty reads {@code <error-page>} from {@code web.xml}.
   */
  EmbeddedJetty(Deployment deployment) throws Exception {
    this(deployment, false);
  }

  private EmbeddedJetty(Deployment deployment, boolean lenient) throws Exception {
    HttpConfiguration config = new HttpConfiguration();
    if (lenient) {
      config.setUriCompliance(UriCompliance.UNSAFE);
    }
    connector = new ServerConnector(server, new HttpConnectionFactory(config));
    connector.setHost("127.0.0.1");
    connector.setPort(0);
    server.addConnector(connector);
    ServletContextHandler context =
        new ServletContextHandler(
            deployment.contextPath().isEmpty() ? "/" : deployment.contextPath());
    context.getServletHandler().setDecodeAmbiguousURIs(lenient);
    ServletHolder servlet = new ServletHolder(deployment.servlet());
    servlet.setAsyncSupported(deployment.async());
    context.addServlet(servlet, deployment.mapping());
    FilterHolder filter = new FilterHolder(deployment.filter());
    filter.setName("rateLimit");
    filter.setAsyncSupported(deployment.async());
    context.addFilter(filter, "/*", EnumSet.copyOf(deployment.dispatches()));
    if (!deployment.statusPages().isEmpty() || !deployment.exceptionPages().isEmpty()) {
      ErrorPageErrorHandler errorPages = new ErrorPageErrorHandler();
      deployment.statusPages().forEach(errorPages::addErrorPage);
      deployment.exceptionPages().forEach(errorPages::addErrorPage);
      context.setErrorHandler(errorPages);
    }
    server.setHandler(context);
    server.start();
  }

  @Override
  public int port() {
    return connector.getLocalPort();
  }

  @Override
  public void close() throws Exception {
    server.stop();
  }
}
