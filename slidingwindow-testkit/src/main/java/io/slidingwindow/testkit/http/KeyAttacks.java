package io.slidingwindow.testkit.http;

import static io.slidingwindow.testkit.http.AttackTable.API_KEY;
import static io.slidingwindow.testkit.http.AttackTable.FAULT;
import static io.slidingwindow.testkit.http.AttackTable.FAULTY;
import static io.slidingwindow.testkit.http.AttackTable.ISSUED_KEY;
import static io.slidingwindow.testkit.http.AttackTable.LIMITED;
import static io.slidingwindow.testkit.http.AttackTable.PERMITS;
import static io.slidingwindow.testkit.http.AttackTable.RAW;
import static io.slidingwindow.testkit.http.AttackTable.TENANT;
import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.http.AttackTable.Attack;
import io.slidingwindow.testkit.http.AttackTable.Endpoint;
import java.util.List;
import java.util.UUID;

/** The table's attacks on keys: rotation, long keys, forwarded spoofing, faulty key sources. */
final class KeyAttacks {

  private KeyAttacks() {}

  private static final String A = LIMITED + "/a";

  static List<Attack> all() {
    return List.of(
        new Attack("a client gets its permits, then 429 with Retry-After", KeyAttacks::baseline),
        new Attack("rotating made-up API keys buys no quota", KeyAttacks::rotation),
        new Attack("an issued API key has a quota of its own", KeyAttacks::issued),
        new Attack(
            "a 1,100-character made-up key gets no more than its address", KeyAttacks::longMadeUp),
        new Attack("a 1,100-character key is limited as any key", KeyAttacks::longRaw),
        new Attack(
            "long keys are not cut: two that share 1,000 characters count apart",
            KeyAttacks::longApart),
        new Attack("a key too long for the server is refused or counted", KeyAttacks::tooLong),
        new Attack("forwarded headers from a client are ignored", KeyAttacks::spoofedSelf),
        new Attack(
            "forwarded headers cannot spend another client's quota", KeyAttacks::spoofedVictim),
        new Attack(
            "behind the trusted proxy, the hop it appended is the client", KeyAttacks::behindProxy),
        new Attack(
            "IPv6 clients rotating inside their /64 share one quota", KeyAttacks::ipv6Rotation),
        new Attack("a key that throws or is null counts against the address", KeyAttacks::faulty));
  }

  private static String madeUp() {
    return "made-up-" + UUID.randomUUID();
  }

  private static void baseline(Endpoint at) {
    Client client = Client.fresh(at);
    assertThat(client.grants(PERMITS, A)).isEqualTo(PERMITS);
    RawHttp.Response refused = client.get(A);
    assertThat(refused.status()).as(refused.head()).isIn(429, 503);
    assertThat(refused.header("Retry-After")).as(refused.head()).isNotNull();
    assertThat(Long.parseLong(refused.header("Retry-After"))).isPositive();
  }

  private static void rotation(Endpoint at) {
    Client client = Client.fresh(at);
    int granted = 0;
    for (int i = 0; i < 4 * PERMITS; i++) {
      granted += Client.granted(client.get(A, API_KEY, madeUp()), "GET") ? 1 : 0;
    }
    assertThat(granted).as("made-up keys share their address's quota").isEqualTo(PERMITS);
    assertThat(client.grants(2, A, API_KEY, client.address()))
        .as("a key spelling an address")
        .isZero();
    assertThat(client.grants(2, A, API_KEY, "ip:" + client.address())).isZero();
  }

  private static void issued(Endpoint at) {
    Client client = Client.fresh(at);
    assertThat(client.grants(PERMITS, A)).isEqualTo(PERMITS);
    assertThat(client.grants(PERMITS + 2, A, API_KEY, ISSUED_KEY))
        .as("the issued key's own quota")
        .isEqualTo(PERMITS);
  }

  private static void longMadeUp(Endpoint at) {
    Client client = Client.fresh(at);
    assertThat(
            client.grants(
                12, A, API_KEY, "k".repeat(1_090) + UUID.randomUUID().toString().substring(0, 10)))
        .isEqualTo(PERMITS);
  }

  private static void longRaw(Endpoint at) {
    Client client = Client.fresh(at);
    String key = "k".repeat(1_064) + UUID.randomUUID();
    assertThat(client.grants(12, RAW + "/a", API_KEY, key)).isEqualTo(PERMITS);
  }

  private static void longApart(Endpoint at) {
    Client client = Client.fresh(at);
    String shared = "s".repeat(1_000) + UUID.randomUUID();
    assertThat(client.grants(PERMITS + 1, RAW + "/a", API_KEY, shared + "-first"))
        .isEqualTo(PERMITS);
    assertThat(client.grants(PERMITS + 1, RAW + "/a", API_KEY, shared + "-second"))
        .isEqualTo(PERMITS);
  }

  private static void tooLong(Endpoint at) {
    Client client = Client.fresh(at);
    String key = "x".repeat(7_000) + UUID.randomUUID();
    assertThat(client.grants(PERMITS + 3, RAW + "/a", API_KEY, key)).isLessThanOrEqualTo(PERMITS);
  }

  private static final String[][] FORGED = {
    {"X-Forwarded-For", "%s"},
    {"X-Forwarded-For", "%s, %s"},
    {"X-Forwarded-For", "127.0.0.1"},
    {"X-Forwarded-For", "[::1]:80"},
    {"Forwarded", "for=%s"},
    {"Forwarded", "for=\"[2001:db8::1]\";proto=https"},
    {"X-Real-IP", "%s"},
    {"X-Client-IP", "%s"},
    {"True-Client-IP", "%s"},
    {"CF-Connecting-IP", "%s"},
  };

  private static String[] forged(String[] header, String address) {
    return new String[] {header[0], header[1].replace("%s", address)};
  }

  private static void spoofedSelf(Endpoint at) {
    Client client = Client.fresh(at);
    assertThat(client.grants(PERMITS, A)).isEqualTo(PERMITS);
    for (String[] header : FORGED) {
      String[] sent = forged(header, Peers.forwardedIpv4());
      assertThat(client.grants(1, A, sent)).as("%s: %s", sent[0], sent[1]).isZero();
    }
  }

  private static void spoofedVictim(Endpoint at) {
    Client attacker = Client.fresh(at);
    Client victim = Client.fresh(at);
    for (String[] header : FORGED) {
      attacker.grants(1, A, forged(header, victim.address()));
    }
    attacker.grants(
        PERMITS, A, "X-Forwarded-For", victim.address(), "X-Forwarded-For", victim.address());
    assertThat(victim.grants(PERMITS, A)).as("the victim's whole quota").isEqualTo(PERMITS);
  }

  private static void behindProxy(Endpoint at) {
    Client proxy = Client.proxy(at);
    String client = Peers.forwardedIpv4();
    int granted = 0;
    for (int i = 0; i < 4 * PERMITS; i++) {
      String spoofed = Peers.forwardedIpv4();
      granted +=
          Client.granted(proxy.get(A, "X-Forwarded-For", spoofed + ", " + client), "GET") ? 1 : 0;
    }
    assertThat(granted).isEqualTo(PERMITS);
    assertThat(proxy.grants(1, A, "X-Forwarded-For", client)).isZero();
    assertThat(proxy.grants(1, A, "X-Forwarded-For", "::ffff:" + client))
        .as("the IPv4-mapped spelling of the same client")
        .isZero();
  }

  private static void ipv6Rotation(Endpoint at) {
    Client proxy = Client.proxy(at);
    String prefix = Peers.forwardedIpv6Prefix();
    int granted = 0;
    for (int i = 0; i < 4 * PERMITS; i++) {
      String address =
          prefix
              + ":"
              + Integer.toHexString(i + 1)
              + ":"
              + Integer.toHexString(7 * i)
              + "::"
              + Integer.toHexString(i);
      granted += Client.granted(proxy.get(A, "X-Forwarded-For", address), "GET") ? 1 : 0;
    }
    assertThat(granted).isEqualTo(PERMITS);
    assertThat(proxy.grants(1, A, "X-Forwarded-For", Peers.forwardedIpv6Prefix() + "::1"))
        .as("another /64")
        .isEqualTo(1);
  }

  private static void faulty(Endpoint at) {
    Client client = Client.fresh(at);
    String target = FAULTY + "/a";
    assertThat(client.grants(2, target, FAULT, "throw")).isEqualTo(2);
    assertThat(client.grants(1, target, FAULT, "null"))
        .as("null and throw share the address")
        .isEqualTo(1);
    assertThat(client.grants(2, target, FAULT, "throw"))
        .as("the address's quota is spent")
        .isZero();
    assertThat(client.grants(2, target, FAULT, "null")).isZero();
    assertThat(client.grants(1, target, TENANT, "tenant-" + UUID.randomUUID()))
        .as("a key of its own counts apart")
        .isEqualTo(1);
    assertThat(Client.fresh(at).grants(1, target, FAULT, "throw"))
        .as("another address")
        .isEqualTo(1);
  }
}
