package io.slidingwindow.server.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class AllowedHostsTest {

  private final AllowedHosts hosts = new AllowedHosts(List.of("admin.example"));

  @Test
  void admits_localhostIpAddressesAndAllowedNames_withOrWithoutAPort() {
    for (String host :
        List.of(
            "localhost",
            "LOCALHOST:6070",
            "127.0.0.1",
            "127.0.0.1:6070",
            "10.1.2.3:80",
            "[::1]",
            "[::1]:6070",
            "[2001:db8::7]:6070",
            "[::ffff:127.0.0.1]",
            " admin.example:6070 ",
            "Admin.Example")) {
      assertThat(hosts.admits(host)).as(host).isTrue();
    }
  }

  @Test
  void admits_noOtherName_norAMalformedHost() {
    for (String host :
        List.of(
            "",
            "rebound.test",
            "rebound.test:6070",
            "127.0.0.1.rebound.test",
            "localhost.rebound.test",
            "sub.admin.example",
            "admin.example.rebound.test",
            "256.0.0.1",
            "127.1",
            "0x7f000001",
            "[::1",
            "[::1]x",
            "[rebound.test]",
            "localhost:",
            "localhost:port",
            "127.0.0.1:6070:1",
            ":6070")) {
      assertThat(hosts.admits(host)).as(host).isFalse();
    }
    assertThat(hosts.admits(null)).isFalse();
  }

  @Test
  void allowedName_onlyTheListedNames() {
    assertThat(hosts.allowedName("admin.example:6070")).isTrue();
    assertThat(hosts.allowedName("localhost")).isFalse();
    assertThat(hosts.allowedName("127.0.0.1")).isFalse();
    assertThat(new AllowedHosts(List.of()).allowedName("admin.example")).isFalse();
  }
}
