package io.slidingwindow.servlet;

import io.undertow.Handlers;
import io.undertow.Undertow;
import io.undertow.UndertowOptions;
import io.undertow.servlet.Servlets;
import io.undertow.servlet.api.DeploymentInfo;
import io.undertow.servlet.api.DeploymentManager;
import io.undertow.servlet.api.ErrorPage;
import io.undertow.servlet.util.ImmediateInstanceFactory;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.Servlet;
import java.net.InetSocketAddress;

/**
 * A real Undertow (the third servlet container Spring Boot 3 ships) on a free loopback port with
 * one filter before a servlet mapped at {@code /*}. Lenient, it decodes encoded slashes and allows
 * unescaped characters in the URL.
 */
final class EmbeddedUndertow implements ServletServer {

  private final Undertow server;
  private final DeploymentManager manager;

  EmbeddedUndertow(Filter filter, Servlet servlet, boolean lenient) throws Exception {
    this(Deployment.of(filter, servlet), lenient);
  }

  /** {@code deployment}, as shipped, its error pages in its deployment. */
  EmbeddedUndertow(Deployment deployment) throws Exception {
    this(deployment, false);
  }

  private EmbeddedUndertow(Deployment app, boolean lenient) throws Exception {
    DeploymentInfo deployment =
        Servlets.deployment()
            .setClassLoader(EmbeddedUndertow.class.getClassLoader())
            .setContextPath(app.contextPath().isEmpty() ? "/" : app.contextPath())
            .setDeploymentName("path-spelling")
            .addServlet(
                Servlets.servlet(
                        "servlet", Servlet.class, new ImmediateInstanceFactory<>(app.servlet()))
                    .addMapping(app.mapping())
                    .setAsyncSupported(app.async()))
            .addFilter(
                Servlets.filter(
                        "rateLimit", Filter.class, new ImmediateInstanceFactory<>(app.filter()))
                    .setAsyncSupported(app.async()));
    for (DispatcherType dispatch : app.dispatches()) {
      deployment.addFilterUrlMapping("rateLimit", "/*", dispatch);
    }
    app.statusPages().forEach((status, at) -> deployment.addErrorPage(new ErrorPage(at, status)));
    app.exceptionPages().forEach((type, at) -> deployment.addErrorPage(new ErrorPage(at, type)));
    manager = Servlets.defaultContainer().addDeployment(deployment);
    manager.deploy();
    String context = app.contextPath().isEmpty() ? "/" : app.contextPath();
    Undertow.Builder builder =
        Undertow.builder()
            .addHttpListener(0, "127.0.0.1")
            .setHandler(Handlers.path().addPrefixPath(context, manager.start()));
    if (lenient) {
      builder
          .setServerOption(UndertowOptions.ALLOW_ENCODED_SLASH, true)
          .setServerOption(UndertowOptions.ALLOW_UNESCAPED_CHARACTERS_IN_URL, true);
    }
    server = builder.build();
    server.start();
  }

  @Override
  public int port() {
    return ((InetSocketAddress) server.getListenerInfo().get(0).getAddress()).getPort();
  }

  @Override
  public void close() throws Exception {
    server.stop();
    manager.stop();
    manager.undeploy();
  }
}
