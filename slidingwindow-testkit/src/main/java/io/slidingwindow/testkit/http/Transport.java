package io.slidingwindow.testkit.http;

import java.net.InetAddress;
import java.util.List;

/**
 * How the {@link AttackTable}'s clients speak to a way in: HTTP/1.1 over a socket of their own
 * ({@link #http()}) for every web stack, or another protocol (gRPC) that a way in's test module
 * supplies, translating each request of the table into a call of its own and the answer back into
 * the terms of HTTP.
 *
 * <p>A transport also says what its requests are routed by, so that the table's attacks on routing
 * send what applies: the spellings of a limited path, and the request methods other than {@code
 * GET}. A protocol that routes by exact names sends the spellings of a name instead; one that has a
 * single request method has no other methods to send, and the table then lists that attack as not
 * applicable to it. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Transport {

  /**
   * Sends one request from the local address {@code from} (any address of 127.0.0.0/8, so that a
   * test can be many clients) to {@code port} on 127.0.0.1 and returns the answer in the terms of
   * HTTP: 2xx with the handler's body for a grant, 429 or 503 with {@code Retry-After} in whole
   * seconds for a refusal, 404 for nothing at that target, another 4xx for a request refused as
   * malformed, 5xx for a server error.
   *
   * @param method the request method
   * @param target the request-target (for HTTP, sent byte for byte)
   * @param headers header names and values in turn
   * @throws IllegalStateException if no answer came, the connection having failed or been closed
   */
  RawHttp.Response send(
      InetAddress from, int port, String method, String target, List<String> headers);

  /** The protocol's name, as the table's notes say it: {@code HTTP/1.1} by default. */
  default String name() {
    return "HTTP/1.1";
  }

  /** What requests are routed by, as the attacks' names say it: {@code path} by default. */
  default String routedBy() {
    return "path";
  }

  /**
   * The request-targets that the attack on spellings sends, each one that some reader might take
   * for {@value AttackTable#LIMITED}{@code /a}: for HTTP, the spellings of a URL path.
   */
  default List<String> spellings() {
    return PathAttacks.SPELLINGS;
  }

  /**
   * The request methods other than {@code GET} that the attack on methods sends to a limited
   * target; empty for a protocol with one request method, for which that attack does not apply.
   */
  default List<String> methods() {
    return PathAttacks.METHODS;
  }

  /** HTTP/1.1, each request on a new socket, sent byte for byte ({@link RawHttp#send}). */
  static Transport http() {
    return RawHttp::send;
  }
}
