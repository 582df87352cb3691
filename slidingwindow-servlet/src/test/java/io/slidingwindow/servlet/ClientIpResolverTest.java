package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.http.RequestKey;
import java.util.List;
import org.junit.jupiter.api.Test;

class ClientIpResolverTest {

  private final ClientIpResolver trusting =
      ClientIpResolver.trusting(List.of("10.0.0.0/8", "192.168.1.7", "fd00::/8"));

  @Test
  void key_ipv6ClientsBehindTrustedProxies_areKeyedByTheirSlash64() {
    // The proxy (fd00::/8, trusted) appended the client; the client rotates inside its /64.
    RequestKey first =
        trusting.key(FakeHttp.request("fd00::7", "/", "X-Forwarded-For", "2001:db8:5:6::1"));
    RequestKey rotated =
        trusting.key(
            FakeHttp.request(
                "fd00::7", "/", "X-Forwarded-For", "6.6.6.6, 2001:db8:5:6:dead:beef:0:9"));
    RequestKey neighbour =
        trusting.key(FakeHttp.request("fd00::7", "/", "X-Forwarded-For", "2001:db8:5:7::1"));
    assertThat(first.value()).isEqualTo("ip:2001:db8:5:6:0:0:0:0/64");
    assertThat(rotated).isEqualTo(first);
    assertThat(neighbour).isNotEqualTo(first);
    // A bracketed hop with a port, appended by two trusted proxies in turn.
    assertThat(
            trusting.key(
                FakeHttp.request(
                    "10.1.2.3", "/", "X-Forwarded-For", "[2001:db8:5:6::abcd]:443, 192.168.1.7")))
        .isEqualTo(first);
    // An IPv6 peer that is not trusted is keyed by its own prefix; its header is ignored.
    assertThat(trusting.key(FakeHttp.request("2001:db8:5:6::2", "/", "X-Forwarded-For", "1.1.1.1")))
        .isEqualTo(first);
  }

  @Test
  void key_ipv4MappedClient_isKeyedAsItsIpv4Address() {
    RequestKey plain = trusting.key(FakeHttp.request("198.51.100.1", "/"));
    assertThat(plain.value()).isEqualTo("ip:198.51.100.1");
    assertThat(trusting.key(FakeHttp.request("::ffff:198.51.100.1", "/"))).isEqualTo(plain);
    assertThat(
            trusting.key(
                FakeHttp.request("10.0.0.1", "/", "X-Forwarded-For", "::ffff:198.51.100.1")))
        .isEqualTo(plain);
    assertThat(
            trusting.key(FakeHttp.request("10.0.0.1", "/", "X-Forwarded-For", "198.51.100.1:4711")))
        .isEqualTo(plain);
  }

  @Test
  void withIpv6PrefixLength_setsTheKeyPrefixAndKeepsTheProxies() {
    ClientIpResolver per48 = trusting.withIpv6PrefixLength(48);
    assertThat(trusting.ipv6PrefixLength()).isEqualTo(64);
    assertThat(ClientIpResolver.direct().ipv6PrefixLength()).isEqualTo(64);
    assertThat(per48.ipv6PrefixLength()).isEqualTo(48);
    assertThat(per48.key(FakeHttp.request("fd00::7", "/", "X-Forwarded-For", "2001:db8:5:6::1")))
        .isEqualTo(per48.key(FakeHttp.request("2001:db8:5:ffff::1", "/")));
    assertThat(
            ClientIpResolver.direct()
                .withIpv6PrefixLength(128)
                .key(FakeHttp.request("2001:db8::1", "/"))
                .value())
        .isEqualTo("ip:2001:db8:0:0:0:0:0:1/128");
    // The IPv4 address is keyed whole under any IPv6 prefix length.
    assertThat(
            per48.key(FakeHttp.request("10.0.0.1", "/", "X-Forwarded-For", "203.0.113.9")).value())
        .isEqualTo("ip:203.0.113.9");
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
}
