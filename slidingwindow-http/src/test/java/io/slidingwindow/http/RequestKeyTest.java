package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RequestKeyTest {

  @Test
  void address_ipv6WithZone_isKeyedByItsPrefixLikeWithout() {
    assertThat(RequestKey.address("fe80::1:2:3:4%eth0", 64))
        .isEqualTo(RequestKey.address("fe80::9:9:9:9", 64))
        .isEqualTo(RequestKey.address("fe80::1:2:3:4", 64));
    assertThat(RequestKey.address("fe80::1%2", 64)).isEqualTo(RequestKey.address("fe80::2", 64));
  }

  @Test
  void value_eachSourceHasItsOwnNamespace() {
    assertThat(RequestKey.address("127.0.0.1", 64).value()).isEqualTo("ip:127.0.0.1");
    assertThat(RequestKey.header("X-Api-Key", "127.0.0.1").value())
        .isEqualTo("header:x-api-key:127.0.0.1");
    assertThat(RequestKey.principal("127.0.0.1").value()).isEqualTo("principal:127.0.0.1");
    assertThat(RequestKey.custom("127.0.0.1").value()).isEqualTo("custom:127.0.0.1");
    assertThat(RequestKey.global().value()).isEqualTo("global");
  }

  @Test
  void value_textSpellingAnotherNamespace_staysInItsOwn() {
    RequestKey address = RequestKey.address("127.0.0.1", 64);
    for (String forged : List.of("ip:127.0.0.1", "127.0.0.1", "global", "(ip:127.0.0.1)")) {
      assertThat(RequestKey.custom(forged)).as(forged).isNotEqualTo(address);
      assertThat(RequestKey.principal(forged)).as(forged).isNotEqualTo(address);
      assertThat(RequestKey.header("X-Api-Key", forged)).as(forged).isNotEqualTo(address);
      assertThat(RequestKey.custom(forged)).isNotEqualTo(RequestKey.global());
      assertThat(RequestKey.custom(forged).value()).doesNotStartWith("sha256:");
    }
    assertThat(RequestKey.custom("ip:127.0.0.1").value()).isEqualTo("custom:ip%3A127.0.0.1");
    // A forwarded hop that is no address cannot spell an address's key.
    assertThat(RequestKey.address("1:2", 64).value()).isEqualTo("ip:1%3A2");
    assertThat(RequestKey.address("0001.2.3.4", 64))
        .isNotEqualTo(RequestKey.address("1.2.3.4", 64));
  }

  @Test
  void value_headerNamesCompareCaseInsensitivelyAndEachNameIsItsOwnNamespace() {
    assertThat(RequestKey.header("X-API-KEY", "k")).isEqualTo(RequestKey.header("x-api-key", "k"));
    assertThat(RequestKey.header("X-Api-Key", "k"))
        .isNotEqualTo(RequestKey.header("X-Tenant", "k"));
    // A name and value split differently cannot meet: the colon in either is escaped.
    assertThat(RequestKey.header("a", "b:c")).isNotEqualTo(RequestKey.header("a:b", "c"));
  }

  @Test
  void of_tuplesAreEqualOnlyForEqualPartsInOrder() {
    RequestKey ip = RequestKey.address("198.51.100.7", 64);
    assertThat(RequestKey.of("42", ip).value()).isEqualTo("(custom:42|ip:198.51.100.7)");
    assertThat(RequestKey.of("42", ip)).isEqualTo(RequestKey.of(RequestKey.custom("42"), ip));
    assertThat(RequestKey.of("42", ip)).isNotEqualTo(RequestKey.of(ip, "42"));
    // A separator inside a part is escaped, so parts cannot be shifted across it.
    assertThat(RequestKey.of("a|custom:b")).isNotEqualTo(RequestKey.of("a", "b"));
    assertThat(RequestKey.of("a)|(custom:b")).isNotEqualTo(RequestKey.of("a", "b"));
    assertThat(RequestKey.of(RequestKey.of("a", "b"), "c"))
        .isNotEqualTo(RequestKey.of("a", RequestKey.of("b", "c")));
  }

  @Test
  void value_randomKeysOfEverySource_neverCollideUnlessEqual() {
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    String alphabet = "ab1:|()%.";
    Map<String, String> seen = new HashMap<>();
    for (int i = 0; i < 20_000; i++) {
      String a = randomText(random, alphabet);
      String b = randomText(random, alphabet);
      List<Object> parts = new ArrayList<>();
      int kind = random.nextInt(5);
      RequestKey key =
          switch (kind) {
            case 0 -> RequestKey.custom(a);
            case 1 -> RequestKey.principal(a);
            case 2 -> RequestKey.header("h" + a, b);
            case 3 -> RequestKey.of(a, RequestKey.principal(b));
            default -> RequestKey.of(RequestKey.custom(a), b, RequestKey.global());
          };
      parts.add(kind);
      parts.add(a);
      parts.add(b);
      String identity = kind == 0 || kind == 1 ? kind + "/" + a : parts.toString();
      String before = seen.putIfAbsent(key.value(), identity);
      assertThat(before == null || before.equals(identity))
          .as("seed %d: %s from %s and %s", seed, key, before, identity)
          .isTrue();
    }
  }

  private static String randomText(Random random, String alphabet) {
    StringBuilder b = new StringBuilder();
    for (int n = random.nextInt(4); n > 0; n--) {
      b.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return b.toString();
  }

  @Test
  void address_ipv6_isKeyedByItsPrefix() {
    RequestKey a = RequestKey.address("2001:db8:1:2:aaaa::1", 64);
    assertThat(a.value()).isEqualTo("ip:2001:db8:1:2:0:0:0:0/64");
    assertThat(RequestKey.address("2001:db8:1:2:ffff:ffff:ffff:ffff", 64)).isEqualTo(a);
    assertThat(RequestKey.address("2001:DB8:1:2::", 64)).isEqualTo(a);
    assertThat(RequestKey.address("2001:db8:1:3::1", 64)).isNotEqualTo(a);
    assertThat(RequestKey.address("2001:db8:1:2:aaaa::1", 48).value())
        .isEqualTo("ip:2001:db8:1:0:0:0:0:0/48");
    assertThat(RequestKey.address("2001:db8:1:2:aaaa::1", 128).value())
        .isEqualTo("ip:2001:db8:1:2:aaaa:0:0:1/128");
    assertThat(RequestKey.address("2001:db8:1:2:aaaa::1", 1).value())
        .isEqualTo("ip:0:0:0:0:0:0:0:0/1");
    assertThat(RequestKey.address("ffff::", 1).value()).isEqualTo("ip:8000:0:0:0:0:0:0:0/1");
    assertThat(RequestKey.address("2001:db8::ff", 121).value())
        .isEqualTo("ip:2001:db8:0:0:0:0:0:80/121");
  }

  @Test
  void address_ipv4AndMappedIpv4_shareTheIpv4Key() {
    assertThat(RequestKey.address("192.0.2.1", 64).value()).isEqualTo("ip:192.0.2.1");
    assertThat(RequestKey.address("::ffff:192.0.2.1", 64))
        .isEqualTo(RequestKey.address("192.0.2.1", 64));
    assertThat(RequestKey.address("::FFFF:c000:0201", 64))
        .isEqualTo(RequestKey.address("192.0.2.1", 64));
    assertThat(RequestKey.address("::ffff:192.0.2.1", 128))
        .isEqualTo(RequestKey.address("192.0.2.1", 8));
    // IPv4 addresses are keyed whole, whatever the IPv6 prefix; 192.0.2.2 is another client.
    assertThat(RequestKey.address("192.0.2.2", 1)).isNotEqualTo(RequestKey.address("192.0.2.1", 1));
    assertThat(RequestKey.address("010.0.0.1", 64).value()).isEqualTo("ip:10.0.0.1");
    // Not mapped: the IPv4-compatible and NAT64 forms stay IPv6.
    assertThat(RequestKey.address("::192.0.2.1", 128).value())
        .startsWith("ip:0:0:0:0:0:0:c000:201");
  }

  @Test
  void address_badPrefixLengthOrNull_throwsNamingTheValue() {
    assertThatThrownBy(() -> RequestKey.address("::1", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ipv6PrefixLength must be 1..128, was 0");
    assertThatThrownBy(() -> RequestKey.address("::1", 129))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("129");
    assertThatThrownBy(() -> RequestKey.address(null, 64))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("address");
    assertThatThrownBy(() -> RequestKey.header(" ", "v"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("header name");
    assertThatThrownBy(() -> RequestKey.of())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("parts");
  }
}
