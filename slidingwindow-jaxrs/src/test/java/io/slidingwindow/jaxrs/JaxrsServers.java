package io.slidingwindow.jaxrs;

import io.undertow.Undertow;
import jakarta.ws.rs.core.Application;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.glassfish.grizzly.http.server.HttpHandler;
import org.glassfish.grizzly.http.server.HttpHandlerRegistration;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.grizzly.http.server.Request;
import org.glassfish.grizzly.http.server.Response;
import org.glassfish.grizzly.http.server.ServerConfiguration;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;
import org.jboss.resteasy.plugins.server.undertow.UndertowJaxrsServer;

/**
 * Real JAX-RS servers on 127.0.0.1, each with the application at {@code /app}: Jersey on Grizzly
 * (its own HTTP server, the peer address from a Grizzly filter) and RESTEasy on Undertow (a servlet
 * deployment, the peer address from {@link ServletPeerAddressFilter}).
 */
final class JaxrsServers {

  /** The JAX-RS implementations the adapter is tested on. */
  enum Implementation {
    JERSEY,
    RESTEASY
  }

  /** A running server. */
  interface Running extends AutoCloseable {
    int port();

    /** The application's base, {@code http://127.0.0.1:PORT/app}. */
    default URI uri(String path) {
      return URI.create("http://127.0.0.1:" + port() + "/app" + path);
    }

    @Override
    void close();
  }

  private JaxrsServers() {}

  /** Starts {@code runtime} serving {@code singletons} (resources, filters, features) at /app. */
  static Running start(Implementation runtime, List<Object> singletons) {
    return start(runtime, singletons, "/app");
  }

  /**
   * Starts {@code runtime} serving {@code singletons} at {@code base}, such as {@code /app}, or
   * {@code ""} for the root.
   */
  static Running start(Implementation runtime, List<Object> singletons, String base) {
    return runtime == Implementation.JERSEY
        ? jersey(singletons, base, Map.of())
        : resteasy(Set.of(), singletons, base);
  }

  /**
   * Starts {@code runtime} serving {@code classes}, registered as classes (Jersey's {@code
   * register(Class)}, RESTEasy's {@link Application#getClasses()}), and {@code singletons} at /app.
   */
  static Running start(Implementation runtime, Set<Class<?>> classes, List<Object> singletons) {
    if (runtime == Implementation.JERSEY) {
      ResourceConfig config = new ResourceConfig();
      classes.forEach(config::register);
      singletons.forEach(config::register);
      return jersey(config, "/app");
    }
    return resteasy(classes, singletons, "/app");
  }

  /** Starts Jersey serving {@code singletons} at /app, with the application properties given. */
  static Running jersey(List<Object> singletons, Map<String, Object> properties) {
    return jersey(singletons, "/app", properties);
  }

  private static Running jersey(
      List<Object> singletons, String base, Map<String, Object> properties) {
    ResourceConfig config = new ResourceConfig();
    config.addProperties(properties);
    singletons.forEach(config::register);
    return jersey(config, base);
  }

  /** Starts Jersey serving {@code config} at {@code base}, with its peer address filter added. */
  static Running jersey(ResourceConfig config, String base) {
    config.register(GrizzlyPeerAddressFilter.class);
    HttpServer server =
        GrizzlyHttpServerFactory.createHttpServer(
            URI.create("http://127.0.0.1:0" + base + "/"), config, false);
    guardBackslashes(server);
    try {
      server.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    int port = server.getListener("grizzly").getPort();
    return new Running() {
      @Override
      public int port() {
        return port;
      }

      @Override
      public void close() {
        server.shutdownNow();
      }
    };
  }

  /**
   * Answers 400 to a request-target with a backslash, in front of Jersey's Grizzly container, which
   * would answer it 500 (its URI parser throws) before any filter runs; as a deployment on Grizzly
   * does (docs/jaxrs.md).
   */
  private static void guardBackslashes(HttpServer server) {
    ServerConfiguration configuration = server.getServerConfiguration();
    Map<HttpHandler, HttpHandlerRegistration[]> handlers =
        new HashMap<>(configuration.getHttpHandlersWithMapping());
    handlers.forEach(
        (jersey, mapping) -> {
          configuration.removeHttpHandler(jersey);
          configuration.addHttpHandler(
              new HttpHandler() {
                @Override
                public void service(Request request, Response response) throws Exception {
                  if (request.getRequestURI().indexOf('\\') >= 0) {
                    response.sendError(400);
                    return;
                  }
                  jersey.service(request, response);
                }
              },
              mapping);
        });
  }

  private static Running resteasy(Set<Class<?>> classes, List<Object> singletons, String base) {
    int port = freePort();
    Set<Object> all = new HashSet<>(singletons);
    all.add(new ServletPeerAddressFilter());
    Application application =
        new Application() {
          @Override
          public Set<Class<?>> getClasses() {
            return classes;
          }

          @Override
          @SuppressWarnings("deprecation") // RESTEasy's way to serve instances
          public Set<Object> getSingletons() {
            return all;
          }
        };
    UndertowJaxrsServer server =
        new UndertowJaxrsServer().start(Undertow.builder().addHttpListener(port, "127.0.0.1"));
    try {
      server.deploy(application, base.isEmpty() ? "/" : base);
    } catch (RuntimeException e) {
      server.stop();
      throw e;
    }
    return new Running() {
      @Override
      public int port() {
        return port;
      }

      @Override
      public void close() {
        server.stop();
      }
    };
  }

  private static int freePort() {
    try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
