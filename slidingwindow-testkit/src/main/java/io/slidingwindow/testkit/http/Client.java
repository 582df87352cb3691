package io.slidingwindow.testkit.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetAddress;
import java.util.List;

/**
 * One client of an attack: requests from one local address to a way in's port, each on a new
 * connection of the way in's transport, and what counts as granted. Not thread-safe.
 */
final class Client {

  private final AttackTable.Endpoint at;
  private final InetAddress from;

  private Client(AttackTable.Endpoint at, InetAddress from) {
    this.at = at;
    this.from = from;
  }

  /** A client from a loopback address no other client has. */
  static Client fresh(AttackTable.Endpoint at) {
    return new Client(at, Peers.loopback());
  }

  /** The trusted proxy, whose {@code X-Forwarded-For} names the client. */
  static Client proxy(AttackTable.Endpoint at) {
    return new Client(at, Peers.proxy());
  }

  /** This client's address, as the server sees it. */
  String address() {
    return from.getHostAddress();
  }

  /** {@code GET target} with {@code headers} (names and values in turn). */
  RawHttp.Response get(String target, String... headers) {
    return send("GET", target, headers);
  }

  /** {@code method target} with {@code headers}; never a server error. */
  RawHttp.Response send(String method, String target, String... headers) {
    RawHttp.Response response =
        at.transport().send(from, at.port(), method, target, List.of(headers));
    assertThat(response.status())
        .as(
            "%s %s from %s: no server error, answered %s",
            method, target, address(), response.head())
        .isLessThan(500);
    return response;
  }

  /** Whether {@code response} is a grant: 2xx from the handler (a HEAD answer has no body). */
  static boolean granted(RawHttp.Response response, String method) {
    return response.status() / 100 == 2
        && (method.equals("HEAD") || response.body().contains(AttackTable.MARKER));
  }

  /** How many of {@code times} requests {@code GET target} with {@code headers} are granted. */
  int grants(int times, String target, String... headers) {
    int granted = 0;
    for (int i = 0; i < times; i++) {
      granted += granted(get(target, headers), "GET") ? 1 : 0;
    }
    return granted;
  }
}
