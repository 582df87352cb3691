package io.slidingwindow.gateway;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.web.context.WebServerApplicationContext;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A backend on a free loopback port that answers 200 with no body to every request, and a gateway
 * in front of it on another: the start-up of the tests that send requests through routes to one
 * backend. Close it after each test; it stops the gateway, if it started, and the backend.
 */
final class BackendAndGateway implements AutoCloseable {

  private final HttpServer backend;
  private ConfigurableApplicationContext gateway;

  /** Starts the backend; {@code seen} is told of each request before it is answered. */
  BackendAndGateway(Consumer<HttpExchange> seen) throws IOException {
    backend = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    backend.createContext(
        "/",
        exchange -> {
          try {
            seen.accept(exchange);
          } finally {
            exchange.sendResponseHeaders(200, -1);
            exchange.close();
          }
        });
    backend.start();
  }

  /** The backend's address, {@code http://127.0.0.1:port}, for a route's {@code uri}. */
  String backendUri() {
    return "http://127.0.0.1:" + backend.getAddress().getPort();
  }

  /**
   * Runs {@code application} as a reactive web application on 127.0.0.1 and a free port, reading
   * {@code configName}.properties if any, with {@code properties} ({@code name=value}) and then
   * {@code more}; returns its port.
   */
  int startGateway(
      Class<?> application, String configName, List<String> properties, String... more) {
    List<String> all = new ArrayList<>(properties);
    all.addAll(List.of(more));
    gateway =
        new SpringApplicationBuilder(application)
            .properties(
                "spring.config.name=" + configName,
                "spring.main.web-application-type=reactive",
                "spring.main.banner-mode=off",
                "server.address=127.0.0.1",
                "server.port=0")
            .properties(all.toArray(String[]::new))
            .run();
    return ((WebServerApplicationContext) gateway).getWebServer().getPort();
  }

  /** The running gateway. */
  ConfigurableApplicationContext gateway() {
    return gateway;
  }

  @Override
  public void close() {
    if (gateway != null) {
      gateway.close();
    }
    backend.stop(0);
  }
}
