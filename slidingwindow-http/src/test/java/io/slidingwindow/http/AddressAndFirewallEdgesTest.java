package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * Both sides of each bound of the path firewall, the address parser and the client address reader:
 * the first and last printable characters, escapes of bytes 0x00, 0x20 and 0x7F, prefix lengths 0
 * and the full width, the longest address text, and separators at the first position.
 */
class AddressAndFirewallEdgesTest {

  private final PathFirewall strict = PathFirewall.strict();

  @Test
  void check_firstAndLastPrintableCharacters_goThroughAndTheirNeighboursDoNot() {
    assertThat(strict.check("/a!b")).isEmpty();
    assertThat(strict.check("/~user")).isEmpty();
    assertThat(strict.check("/a b")).contains("a control, space or non-ASCII character");
    assertThat(strict.check("/a\u007Fb")).contains("a control, space or non-ASCII character");
  }

  @Test
  void check_escapesAroundTheControlCharacters_areToldApart() {
    assertThat(strict.check("/a%20b")).isEmpty();
    assertThat(strict.check("/a%21b")).isEmpty();
    assertThat(strict.check("/a%7Eb")).isEmpty();
    assertThat(strict.check("/a%1Fb")).contains("an encoded control character");
    assertThat(strict.check("/a%7Fb")).contains("an encoded control character");
    assertThat(strict.check("/a%0Ab")).contains("an encoded control character");
    assertThat(strict.check("/a%00b")).contains("an encoded control character");
    assertThat(strict.check("/a%0")).contains("a '%' not followed by two hex digits");
    assertThat(strict.check("/a%")).contains("a '%' not followed by two hex digits");
  }

  @Test
  void check_doubleSlashAtTheStart_isAnEmptySegment() {
    assertThat(strict.check("//a")).contains("an empty segment ('//')");
    assertThat(strict.check("/")).isEmpty();
  }

  @Test
  void toString_namesTheFirewallsKind() {
    assertThat(PathFirewall.off()).hasToString("PathFirewall[off]");
    assertThat(PathFirewall.strict()).hasToString("PathFirewall[strict, allowing []]");
    assertThat(PathFirewall.allowing(PathFirewall.Allowance.SEMICOLON))
        .hasToString("PathFirewall[strict, allowing [SEMICOLON]]");
  }

  @Test
  void parse_prefixLengthsZeroAndFullWidth_areBlocks() {
    IpRange everything = IpRange.parse("0.0.0.0/0");
    assertThat(everything.contains("255.255.255.255")).isTrue();
    assertThat(everything.contains("::1")).isFalse();
    IpRange one = IpRange.parse("10.0.0.7/32");
    assertThat(one.contains("10.0.0.7")).isTrue();
    assertThat(one.contains("10.0.0.6")).isFalse();
    assertThat(IpRange.parse("::/0").contains("2001:db8::1")).isTrue();
    assertThat(IpRange.parse("::1/128").contains("::1")).isTrue();
    assertThat(IpRange.parse("::1/128").contains("::2")).isFalse();
    assertThat(IpRange.parse(" 10.0.0.0/8 ")).hasToString("10.0.0.0/8");
  }

  @Test
  void parse_prefixLengthBeyondTheWidth_throwsNamingTheWidth() {
    assertThatThrownBy(() -> IpRange.parse("10.0.0.0/33"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("trusted proxy prefix length must be 0..32, was '10.0.0.0/33'");
    assertThatThrownBy(() -> IpRange.parse("::/129"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("trusted proxy prefix length must be 0..128, was '::/129'");
    assertThatThrownBy(() -> IpRange.parse("10.0.0.0/-1"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0..32");
    assertThatThrownBy(() -> IpRange.parse("10.0.0.0/x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0..32");
    assertThatThrownBy(() -> IpRange.parse(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("trusted proxy must not be null");
  }

  @Test
  void literal_longestAddressText_isAnAddress() {
    String longest = "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255";
    assertThat(longest).hasSize(45);
    assertThat(IpRange.literal(longest)).hasSize(16);
    assertThat(IpRange.literal("0" + longest)).isNull();
  }

  @Test
  void literal_groupsOfFourDigits_areAddressesAndOfFiveAreNot() {
    assertThat(IpRange.literal("2001:db8::1")).hasSize(16);
    assertThat(IpRange.literal("ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff")).hasSize(16);
    assertThat(IpRange.literal("fffff::1")).isNull();
  }

  @Test
  void literal_gapStandingForOneOrMoreGroups_allowsSevenGroupsAroundItAndNoMore() {
    assertThat(IpRange.literal("1:2:3:4:5:6::7")).hasSize(16);
    assertThat(IpRange.literal("1:2:3:4:5:6:7::")).hasSize(16);
    assertThat(IpRange.literal("::1:2:3:4:5:6:7")).hasSize(16);
    assertThat(IpRange.literal("1:2:3:4:5:6:7::8")).isNull();
    assertThat(IpRange.literal("1:2:3:4:5:6:7")).isNull();
    assertThat(IpRange.literal("1:2:3:4:5:6:7:8:9")).isNull();
    assertThat(IpRange.literal("1::2::3")).isNull();
  }

  @Test
  void normalize_separatorsAtTheFirstPosition_areNoPort() {
    assertThat(ClientAddresses.normalize(":1.2.3.4")).isEqualTo(":1.2.3.4");
    assertThat(ClientAddresses.normalize(".5:80")).isEqualTo(".5:80");
    assertThat(ClientAddresses.normalize("1.2.3.4:80")).isEqualTo("1.2.3.4");
    assertThat(ClientAddresses.normalize("[::1]:80")).isEqualTo("::1");
    assertThat(ClientAddresses.normalize("[::1")).isEqualTo("[::1");
    assertThat(ClientAddresses.normalize(" 1.2.3.4 ")).isEqualTo("1.2.3.4");
    assertThat(ClientAddresses.normalize(null)).isEmpty();
  }

  @Test
  void withIpv6PrefixLength_keysClientsByThatPrefix() {
    ClientAddresses wide = ClientAddresses.direct().withIpv6PrefixLength(48);
    assertThat(wide.ipv6PrefixLength()).isEqualTo(48);
    assertThat(ClientAddresses.direct().ipv6PrefixLength()).isEqualTo(64);
    assertThat(wide.key("2001:db8:1:2::9", List.of()))
        .isEqualTo(RequestKey.address("2001:db8:1::", 48));
    assertThat(wide.key("2001:db8:1:2::9", List.of()).value())
        .isEqualTo("ip:2001:db8:1:0:0:0:0:0/48");
    assertThat(wide).hasToString("trusting [], IPv6 clients by /48");
    assertThat(ClientAddresses.trusting(List.of("10.0.0.0/8")))
        .hasToString("trusting [10.0.0.0/8], IPv6 clients by /64");
    assertThatThrownBy(() -> wide.withIpv6PrefixLength(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("ipv6PrefixLength must be 1..128, was 0");
  }

  @Test
  void refusal_statusBounds_areTheErrorClasses() {
    assertThat(new RefusalReplies.Refusal(400, "text/plain", "x").status()).isEqualTo(400);
    assertThat(new RefusalReplies.Refusal(599, "text/plain", "x").status()).isEqualTo(599);
    for (int status : new int[] {399, 600}) {
      assertThatThrownBy(() -> new RefusalReplies.Refusal(status, "text/plain", "x"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("status must be a client or server error, 400 to 599, was " + status);
    }
  }

  @Test
  void of_variableOfOneCharacter_isAVariable() {
    assertThat(PathPattern.of("/x/{a}").matches("/x/anything")).isTrue();
    assertThatThrownBy(() -> PathPattern.of("/x/{}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("pattern: a variable segment must be '{name}', was /x/{}");
  }

  @Test
  void check_returnsNoReasonForAnOrdinaryPath() {
    assertThat(strict.check("/v1/product/42")).isEqualTo(Optional.empty());
  }
}
