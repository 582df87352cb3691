package io.slidingwindow.testkit.http;

import static io.slidingwindow.testkit.http.AttackTable.LIMITED;
import static io.slidingwindow.testkit.http.AttackTable.PERMITS;
import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.http.AttackTable.Attack;
import io.slidingwindow.testkit.http.AttackTable.Endpoint;
import java.util.ArrayList;
import java.util.List;

/**
 * The table's attacks on routing: each spelling of a limited path (or, over a transport that routes
 * by names, of a limited name), sent as is by a client of its own, must be refused (4xx, or the
 * connection closed) or counted: a spelling that reached the handler must have taken one of the
 * client's permits, so that the client then gets one fewer on the plain path.
 */
final class PathAttacks {

  private PathAttacks() {}

  /** Spellings of {@code /limited/a}, and of paths a server may read as it. */
  static final List<String> SPELLINGS =
      List.of(
          "/limited/a/",
          "//limited/a",
          "/limited//a",
          "/./limited/a",
          "/limited/./a",
          "/limited/a/.",
          "/x/../limited/a",
          "/limited/x/../a",
          "/limited/a/..;/a",
          "/limited/..;/limited/a",
          "/limited;x=1/a",
          "/limited/a;jsessionid=1",
          "/limited/%61",
          "/%6cimited/a",
          "/%6C%69%6D%69%74%65%64/a",
          "/limited/%2e/a",
          "/limited/%2E%2E/limited/a",
          "/limited/a/%2e%2e/a",
          "/limited%2Fa",
          "/limited%2fa",
          "/limited%5Ca",
          "/limited\\a",
          "/limited/a%2F..%2F..%2Flimited%2Fa",
          "/limited/%252e%252e/a",
          "/limited/%c0%ae%c0%ae/a",
          "/limited/a%00",
          "/limited/a%20",
          "/limited/a?x=1",
          "/limited/a?/../../x",
          "/LIMITED/a",
          "/Limited/a",
          "/limited/A",
          "/limited/a.json",
          "/limited/a/b",
          "/limited",
          "http://127.0.0.1/limited/a",
          "/limited/\u00e4");

  /** The request methods other than {@code GET} that HTTP sends to a limited path. */
  static final List<String> METHODS = List.of("HEAD", "POST", "PUT", "DELETE", "OPTIONS", "get");

  /**
   * The attacks on routing over {@code transport}: its spellings of a limited target, and its other
   * request methods, listed as not applicable where it has none.
   */
  static List<Attack> all(Transport transport) {
    List<Attack> attacks = new ArrayList<>();
    String spellings =
        "every spelling of a limited " + transport.routedBy() + " is refused or counted";
    attacks.add(
        new Attack(
            spellings,
            at -> {
              for (String spelling : transport.spellings()) {
                spelledOnce(at, "GET", spelling);
              }
            }));
    String methods = "every method on a limited " + transport.routedBy() + " is refused or counted";
    if (transport.methods().isEmpty()) {
      attacks.add(Attack.notApplicable(methods, transport.name() + " has one request method"));
    } else {
      attacks.add(
          new Attack(
              methods,
              at -> {
                for (String method : transport.methods()) {
                  spelledOnce(at, method, LIMITED + "/a");
                }
              }));
    }
    return List.copyOf(attacks);
  }

  /**
   * Sends {@code method target} from a fresh client; if the handler answered it, the client must
   * then get one permit fewer on {@code GET /limited/a}.
   */
  private static void spelledOnce(Endpoint at, String method, String target) {
    Client client = Client.fresh(at);
    RawHttp.Response response;
    try {
      response = client.send(method, target);
    } catch (IllegalStateException closed) {
      response = null; // the server closed the connection: not answered, fine
    }
    boolean reached = response != null && Client.granted(response, method);
    int granted = client.grants(PERMITS, LIMITED + "/a");
    if (reached) {
      assertThat(granted)
          .as(
              "%s %s reached the handler (%s), so it must have been counted",
              method, target, response.status())
          .isEqualTo(PERMITS - 1);
    } else {
      assertThat(granted).as("%s %s", method, target).isLessThanOrEqualTo(PERMITS);
    }
  }
}
