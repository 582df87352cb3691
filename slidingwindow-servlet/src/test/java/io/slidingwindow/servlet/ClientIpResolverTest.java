package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class ClientIpResolverTest {

  private final ClientIpResolver trusting =
      ClientIpResolver.trusting(List.of("10.0.0.0/8", "192.168.1.7", "fd00::/8"));

  @Test
  void resolve_untrustedPeer_ignoresForwardedFor() {
    assertThat(trusting.resolve("203.0.113.9", List.of("1.2.3.4"))).isEqualTo("203.0.113.9");
    assertThat(ClientIpResolver.direct().resolve("10.0.0.1", List.of("1.2.3.4")))
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
    assertThat(trusting.resolve("10.1.2.3", List.of("198.51.100.1:4711"))).isEqualTo("198.51.100.1");
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
    ClientIpResolver r = ClientIpResolver.trusting(List.of("172.16.0.0/12", "::ffff:0:0/96"));
    assertThat(r.isTrusted("172.16.0.0")).isTrue();
    assertThat(r.isTrusted("172.31.255.255")).isTrue();
    assertThat(r.isTrusted("172.32.0.0")).isFalse();
    assertThat(r.isTrusted("172.15.255.255")).isFalse();
    // The IPv4-mapped form is inside the mapped block; a plain IPv4 address is never in an IPv6 block.
    assertThat(r.isTrusted("::ffff:172.16.0.1")).isTrue();
    assertThat(ClientIpResolver.trusting(List.of("0.0.0.0/0")).isTrusted("2001:db8::1")).isFalse();
    assertThat(ClientIpResolver.trusting(List.of("0.0.0.0/0")).isTrusted("8.8.8.8")).isTrue();
  }

  @Test
  void isTrusted_malformedAddresses_areNotTrusted() {
    ClientIpResolver all = ClientIpResolver.trusting(List.of("0.0.0.0/0", "::/0"));
    assertThat(all.isTrusted("255.255.255.255")).isTrue();
    assertThat(all.isTrusted("256.1.1.1")).isFalse();
    assertThat(all.isTrusted("1.2.3")).isFalse();
    assertThat(all.isTrusted("1:2:3")).isFalse();
    assertThat(all.isTrusted("::1")).isTrue();
    assertThat(all.isTrusted("")).isFalse();
    assertThat(all.isTrusted("unknown")).isFalse();
  }

  @Test
  void trusting_invalidCidr_throwsNamingTheValue() {
    assertThatThrownBy(() -> ClientIpResolver.trusting(List.of("10.0.0.0/33")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("10.0.0.0/33");
    assertThatThrownBy(() -> ClientIpResolver.trusting(List.of("proxy.example")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("proxy.example");
    assertThatThrownBy(() -> ClientIpResolver.trusting(List.of("300.0.0.0/8")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("300.0.0.0/8");
    assertThatThrownBy(() -> ClientIpResolver.trusting(List.of("10.0.0.0/x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("10.0.0.0/x");
  }
}
