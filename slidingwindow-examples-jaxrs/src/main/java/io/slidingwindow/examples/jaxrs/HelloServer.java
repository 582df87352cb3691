package io.slidingwindow.examples.jaxrs;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Ticker;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.jaxrs.GrizzlyPeerAddressFilter;
import io.slidingwindow.jaxrs.RateLimitFeature;
import java.net.URI;
import org.glassfish.grizzly.http.server.HttpServer;
import org.glassfish.jersey.grizzly2.httpserver.GrizzlyHttpServerFactory;
import org.glassfish.jersey.server.ResourceConfig;

/**
 * A Jersey service on 127.0.0.1 whose {@code GET /hello} answers at most 5 times in any 10 seconds
 * per client address, then 429 with {@code Retry-After} and the draft-10 {@code RateLimit} headers.
 *
 * <pre>
 * ./mvnw -q -pl slidingwindow-examples-jaxrs -am compile exec:java -Dexec.args="--port 8080"
 * </pre>
 */
public final class HelloServer {

  private HelloServer() {}

  /**
   * The application: the resource, the client's address from Grizzly, and {@code @RateLimit} on
   * {@code ticker}'s clock, with the draft-10 headers.
   */
  static ResourceConfig application(Ticker ticker) {
    return new ResourceConfig(HelloResource.class)
        .register(GrizzlyPeerAddressFilter.class)
        .register(
            RateLimitFeature.builder()
                .limiterFactory(
                    RateLimiterFactory.inMemory(ticker, KeyedRateLimiter.Builder.DEFAULT_MAX_KEYS))
                .rateLimitHeaders(true)
                .build());
  }

  /** Starts the service on 127.0.0.1:{@code port} (0 for any free port). */
  static HttpServer start(int port, Ticker ticker) {
    return GrizzlyHttpServerFactory.createHttpServer(
        URI.create("http://127.0.0.1:" + port + "/"), application(ticker), true);
  }

  /**
   * Runs the service until the process is stopped.
   *
   * @param args {@code --port N} (8080 by default)
   */
  public static void main(String[] args) throws InterruptedException {
    int port = port(args, 8080);
    HttpServer server = start(port, Ticker.system());
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
    int bound = server.getListener("grizzly").getPort();
    System.out.println(
        "Hello service on http://127.0.0.1:"
            + bound
            + "/hello; 5 requests per 10 s per client address. Try:");
    System.out.println(
        "  for i in $(seq 7); do curl -s -o /dev/null -w '%{http_code} '"
            + " http://127.0.0.1:"
            + bound
            + "/hello; done; echo; curl -i http://127.0.0.1:"
            + bound
            + "/hello");
    Thread.currentThread().join();
  }

  /**
   * The value of {@code --port N} or {@code --port=N}, or {@code otherwise}.
   *
   * @throws IllegalArgumentException if it is not a port number
   */
  static int port(String[] args, int otherwise) {
    for (int i = 0; i < args.length; i++) {
      String value = null;
      if (args[i].equals("--port")) {
        value = i + 1 < args.length ? args[i + 1] : "";
      } else if (args[i].startsWith("--port=")) {
        value = args[i].substring("--port=".length());
      }
      if (value != null) {
        if (!value.matches("[0-9]{1,5}") || Integer.parseInt(value) > 65_535) {
          throw new IllegalArgumentException("--port must be 0 to 65535, was '" + value + "'");
        }
        return Integer.parseInt(value);
      }
    }
    return otherwise;
  }
}
