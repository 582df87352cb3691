package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ClientAddressesTest {

  private final ClientAddresses trusting =
      ClientAddresses.trusting(List.of("10.0.0.0/8", "192.168.1.7", "fd00::/8"));

  @Test
  void resolve_untrustedPeer_ignoresForwardedFor() {
    assertThat(trusting.resolve("203.0.113.9", List.of("1.2.3.4"))).isEqualTo("203.0.113.9");
    assertThat(ClientAddresses.direct().resolve("10.0.0.1", List.of("1.2.3.4")))
        .isEqualTo("10.0.0.1");
  }

  @Test
  void resolve_trustedPeer_takesRightMostUntrustedHop() {
    assertThat(trusting.resolve("10.1.2.3", List.of("198.51.100.1"))).isEqualTo("198.51.100.1");
    // The client wrote "6.6.6.6" itself; the proxies appended the real client and one another.
    assertThat(trusting.resolve("10.1.2.3", List.of("6.6.6.6, 198.51.100.1, 192.168.1.7")))
        .isEqualTo("198.51.100.1");
    assertThat(trusting.resolve("10.1.2.3", List.of("6.6.6.6", "198.51.100.1, 10.9.9.9")))
        .isEqualTo("198.51.100.1");
  }

  @Test
  void resolve_everyHopTrusted_takesLeftMostHop() {
    assertThat(trusting.resolve("10.1.2.3", List.of("10.0.0.5, 10.0.0.6"))).isEqualTo("10.0.0.5");
    assertThat(trusting.resolve("10.1.2.3", List.of())).isEqualTo("10.1.2.3");
    assertThat(trusting.resolve("10.1.2.3", List.of(" , "))).isEqualTo("10.1.2.3");
  }

  @Test
  void resolve_portsBracketsAndIpv6_areNormalized() {
    assertThat(trusting.resolve("10.1.2.3", List.of("198.51.100.1:4711")))
        .isEqualTo("198.51.100.1");
    assertThat(trusting.resolve("fd00::1", List.of("[2001:db8::1]:443"))).isEqualTo("2001:db8::1");
    assertThat(trusting.resolve("fd12::7", List.of("2001:db8::2"))).isEqualTo("2001:db8::2");
  }

  @Test
  void resolve_hostNameHop_isNeverTrusted() {
    assertThat(trusting.resolve("10.1.2.3", List.of("198.51.100.1, localhost")))
        .isEqualTo("localhost");
  }

  @Test
  void isTrusted_prefixBoundaries_areExact() {
    ClientAddresses r = ClientAddresses.trusting(List.of("172.16.0.0/12", "::ffff:0:0/96"));
    assertThat(r.isTrusted("172.16.0.0")).isTrue();
    assertThat(r.isTrusted("172.31.255.255")).isTrue();
    assertThat(r.isTrusted("172.32.0.0")).isFalse();
    assertThat(r.isTrusted("172.15.255.255")).isFalse();
    // The IPv4-mapped form is inside the mapped block; a plain IPv4 address is never in an IPv6
    // block.
    assertThat(r.isTrusted("::ffff:172.16.0.1")).isTrue();
    assertThat(ClientAddresses.trusting(List.of("0.0.0.0/0")).isTrusted("2001:db8::1")).isFalse();
    assertThat(ClientAddresses.trusting(List.of("0.0.0.0/0")).isTrusted("8.8.8.8")).isTrue();
  }

  @Test
  void isTrusted_malformedAddresses_areNotTrusted() {
    ClientAddresses all = ClientAddresses.trusting(List.of("0.0.0.0/0", "::/0"));
    assertThat(all.isTrusted("255.255.255.255")).isTrue();
    assertThat(all.isTrusted("256.1.1.1")).isFalse();
    assertThat(all.isTrusted("1.2.3")).isFalse();
    assertThat(all.isTrusted("1:2:3")).isFalse();
    assertThat(all.isTrusted("::1")).isTrue();
    assertThat(all.isTrusted("")).isFalse();
    assertThat(all.isTrusted("unknown")).isFalse();
  }

  @Test
  void isTrusted_textThatIsNoLiteral_isNeverLookedUp() throws Exception {
    // The test JVM resolves names through src/test/resources/hosts, which maps these texts to
    // 10.0.0.1: had any reached a resolver, it would come back as a trusted (mapped) address.
    assertThat(System.getProperty("jdk.net.hosts.file")).as("surefire argLine").isNotNull();
    assertThat(InetAddress.getByName(".:a").getHostAddress()).isEqualTo("10.0.0.1");
    ClientAddresses r = ClientAddresses.trusting(List.of("10.0.0.0/8", "::ffff:0:0/96"));
    for (String hop : List.of(".:a", ".::", ".1:2")) {
      assertThat(IpRange.literal(hop)).as(hop).isNull();
      assertThat(r.isTrusted(hop)).as(hop).isFalse();
    }
    assertThat(r.resolve("10.1.2.3", List.of("198.51.100.1, .:a"))).isEqualTo(".:a");
  }

  @Test
  void literal_ipv6Forms_parseAsTheJdkParsesThem() throws Exception {
    for (String text :
        List.of(
            "::",
            "::1",
            "1::",
            "2001:db8::1",
            "fe80::1:2:3:4:5:6",
            "1:2:3:4:5:6:7:8",
            "::ffff:192.0.2.1",
            "64:ff9b::198.51.100.7",
            "A:b:C:d:E:f:0:1",
            "1:2:3:4:5:6:1.2.3.4")) {
      byte[] jdk = InetAddress.getByName(text).getAddress();
      byte[] expected = jdk.length == 16 ? jdk : mapped(jdk);
      assertThat(IpRange.literal(text)).as(text).containsExactly(expected);
    }
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    for (int i = 0; i < 2000; i++) {
      StringBuilder text = new StringBuilder();
      for (int g = 0; g < 8; g++) {
        text.append(g == 0 ? "" : ":")
            .append(Integer.toHexString(random.nextInt(1 << (4 * (1 + random.nextInt(4))))));
      }
      assertThat(IpRange.literal(text.toString()))
          .as("seed %d: %s", seed, text)
          .containsExactly(InetAddress.getByName(text.toString()).getAddress());
    }
  }

  @Test
  void literal_malformedIpv6_isNull() {
    for (String text :
        List.of(
            ":",
            ":::",
            "1:::2",
            "1::2::3",
            ":1:2:3:4:5:6:7",
            "1:2:3:4:5:6:7:",
            "1:2:3:4:5:6:7",
            "1:2:3:4:5:6:7:8:9",
            "1::2:3:4:5:6:7:8",
            "12345::",
            "g::1",
            "1.2.3.4::",
            "::1.2.3",
            "::256.1.1.1",
            "::1.2.3.4:5",
            "1:2:3:4:5:6:7:1.2.3.4",
            "fe80::1%eth0",
            "١::1")) {
      assertThat(IpRange.literal(text)).as(text).isNull();
    }
  }

  private static byte[] mapped(byte[] v4) {
    byte[] bytes = new byte[16];
    bytes[10] = (byte) 0xFF;
    bytes[11] = (byte) 0xFF;
    System.arraycopy(v4, 0, bytes, 12, 4);
    return bytes;
  }

  @Test
  void withIpv6PrefixLength_outside1To128_throwsNamingTheValue() {
    assertThatThrownBy(() -> trusting.withIpv6PrefixLength(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ipv6PrefixLength must be 1..128, was 0");
    assertThatThrownBy(() -> trusting.withIpv6PrefixLength(129))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ipv6PrefixLength must be 1..128, was 129");
  }

  @Test
  void trusting_invalidCidr_throwsNamingTheValue() {
    assertThatThrownBy(() -> ClientAddresses.trusting(List.of("10.0.0.0/33")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("10.0.0.0/33");
    assertThatThrownBy(() -> ClientAddresses.trusting(List.of("proxy.example")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("proxy.example");
    assertThatThrownBy(() -> ClientAddresses.trusting(List.of("300.0.0.0/8")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("300.0.0.0/8");
    assertThatThrownBy(() -> ClientAddresses.trusting(List.of("10.0.0.0/x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("10.0.0.0/x");
  }
}
