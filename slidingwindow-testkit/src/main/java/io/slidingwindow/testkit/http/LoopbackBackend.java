package io.slidingwindow.testkit.http;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A backend on a free loopback port that answers 200 "ok" to everything and counts the requests it
 * got: what a gateway or proxy under test forwards to.
 */
public final class LoopbackBackend implements AutoCloseable {

  private final HttpServer server;
  private final AtomicInteger hits = new AtomicInteger();

  private LoopbackBackend(HttpServer server) {
    this.server = server;
  }

  /** Starts a backend on a free loopback port. */
  public static LoopbackBackend start() {
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      LoopbackBackend backend = new LoopbackBackend(server);
      server.createContext(
          "/",
          exchange -> {
            backend.hits.incrementAndGet();
            byte[] body = "ok".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(body);
            }
          });
      server.start();
      return backend;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Its base URI, {@code http://127.0.0.1:<port>}. */
  public URI uri() {
    return URI.create("http://127.0.0.1:" + server.getAddress().getPort());
  }

  /** How many requests reached the backend. */
  public int hits() {
    return hits.get();
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
