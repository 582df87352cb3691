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
 * A backend on a free loopback port that answers a fixed body ("ok" unless told) to everything and
 * counts the requests it got: what a gateway or proxy under test forwards to. It answers 200, or
 * the status a request names in its {@value #STATUS} header (a failed login, say).
 */
public final class LoopbackBackend implements AutoCloseable {

  /** The request header that names the status to answer with. */
  public static final String STATUS = "X-Backend-Status";

  private final HttpServer server;
  private final AtomicInteger hits = new AtomicInteger();

  private LoopbackBackend(HttpServer server) {
    this.server = server;
  }

  /** Starts a backend on a free loopback port that answers "ok". */
  public static LoopbackBackend start() {
    return start("ok");
  }

  /** Starts a backend on a free loopback port that answers {@code body}. */
  public static LoopbackBackend start(String body) {
    byte[] answer = body.getBytes(StandardCharsets.UTF_8);
    try {
      HttpServer server =
          HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
      LoopbackBackend backend = new LoopbackBackend(server);
      server.createContext(
          "/",
          exchange -> {
            backend.hits.incrementAndGet();
            String asked = exchange.getRequestHeaders().getFirst(STATUS);
            int status = asked == null ? 200 : Integer.parseInt(asked);
            if (exchange.getRequestMethod().equals("HEAD")) {
              exchange.sendResponseHeaders(status, -1);
              exchange.close();
              return;
            }
            exchange.sendResponseHeaders(status, answer.length);
            try (OutputStream out = exchange.getResponseBody()) {
              out.write(answer);
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
