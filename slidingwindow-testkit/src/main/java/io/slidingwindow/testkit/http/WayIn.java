package io.slidingwindow.testkit.http;

import java.util.function.Supplier;

/**
 * One way into an application that the {@link AttackTable} attacks: a server started on a loopback
 * port with the table's contract, which a web stack's test module supplies in a few lines (the
 * servlet filter on Tomcat, a gateway route, {@code @RateLimit} on WebFlux, ...).
 *
 * <p>The contract. The server listens on {@code 127.0.0.1} and speaks HTTP/1.1, or the protocol of
 * the way in's {@link Transport} (a gRPC server, whose calls the transport names by the table's
 * paths: {@code /limited/a} is the method {@code a} of the service {@code limited}). It believes
 * {@code X-Forwarded-For} only from {@value AttackTable#TRUSTED_PROXY} and keys an IPv6 client by
 * its /64. It answers {@code GET} (and whatever else its stack routes there) on three paths below
 * which every request is limited to {@value AttackTable#PERMITS} in any hour, a grant answering 2xx
 * with a body that holds {@value AttackTable#MARKER}:
 *
 * <ul>
 *   <li>{@value AttackTable#LIMITED}{@code /{id}}: keyed on the {@value AttackTable#API_KEY} header
 *       if its value is {@value AttackTable#ISSUED_KEY}, else on the client address;
 *   <li>{@value AttackTable#RAW}{@code /{id}}: keyed on the {@value AttackTable#API_KEY} header as
 *       sent (the client address without one), so that long keys reach the limiter;
 *   <li>{@value AttackTable#FAULTY}{@code /{id}}: keyed by a key source that throws when the
 *       {@value AttackTable#FAULT} header says {@code throw}, gives no key when it says {@code
 *       null}, and otherwise gives an application key made of the {@value AttackTable#TENANT}
 *       header ({@code none} without one).
 * </ul>
 *
 * <p>Every other path answers 404 or is left to the stack.
 */
public interface WayIn extends AutoCloseable {

  /** The port on 127.0.0.1 the server listens on. */
  int port();

  /** Stops the server. */
  @Override
  void close();

  /** A started way in on {@code port}, stopped by {@code stop}. */
  static WayIn of(int port, Runnable stop) {
    return new WayIn() {
      @Override
      public int port() {
        return port;
      }

      @Override
      public void close() {
        stop.run();
      }
    };
  }

  /**
   * A way in over HTTP/1.1 named {@code name} (as the tests show it), started by {@code start}
   * before its first attack and closed after its last.
   *
   * @param name what the attacks are shown under, such as "servlet filter on Tomcat"
   * @param start starts the server and returns it
   */
  static Named named(String name, Supplier<? extends WayIn> start) {
    return new Named(name, Transport.http(), start);
  }

  /**
   * A way in that the table's clients reach through {@code transport}, as {@link #named(String,
   * Supplier)} otherwise.
   *
   * @param name what the attacks are shown under, such as "gRPC interceptor"
   * @param transport how the clients send their requests
   * @param start starts the server and returns it
   */
  static Named named(String name, Transport transport, Supplier<? extends WayIn> start) {
    return new Named(name, transport, start);
  }

  /**
   * A way in with its name and transport, not started yet.
   *
   * @param name what the attacks are shown under
   * @param transport how the clients send their requests
   * @param start starts the server
   */
  record Named(String name, Transport transport, Supplier<? extends WayIn> start) {}
}
