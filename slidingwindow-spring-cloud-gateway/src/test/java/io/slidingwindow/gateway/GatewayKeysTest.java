package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import java.net.InetSocketAddress;
import java.security.Principal;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.cloud.gateway.filter.ratelimit.KeyResolver;
import org.springframework.mock.http.server.reactive.MockServerHttpRequest;
import org.springframework.mock.web.server.MockServerWebExchange;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

class GatewayKeysTest {

  private static final ClientAddresses ADDRESSES = ClientAddresses.trusting(List.of("10.0.0.0/8"));

  private static MockServerWebExchange exchange(String peer, String... headers) {
    MockServerHttpRequest.BaseBuilder<?> request =
        MockServerHttpRequest.get("/api/items").remoteAddress(new InetSocketAddress(peer, 40000));
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return MockServerWebExchange.from(request);
  }

  private static String key(KeyResolver resolver, ServerWebExchange exchange) {
    return resolver.resolve(exchange).block(Duration.ofSeconds(5));
  }

  @Test
  void clientAddress_forwardedOnlyFromTrustedProxies_ipv6ByItsSlash64() {
    KeyResolver resolver = GatewayKeys.clientAddress(ADDRESSES);
    assertThat(key(resolver, exchange("203.0.113.7"))).isEqualTo("ip:203.0.113.7");
    assertThat(key(resolver, exchange("203.0.113.7", "X-Forwarded-For", "198.51.100.1")))
        .as("an untrusted peer cannot name another client")
        .isEqualTo("ip:203.0.113.7");
    assertThat(key(resolver, exchange("10.0.0.2", "X-Forwarded-For", "6.6.6.6, 198.51.100.1")))
        .isEqualTo("ip:198.51.100.1");
    assertThat(key(resolver, exchange("10.0.0.2", "X-Forwarded-For", "2001:db8:1:2::99")))
        .isEqualTo(key(resolver, exchange("10.0.0.2", "X-Forwarded-For", "2001:db8:1:2:ffff::1")))
        .isEqualTo("ip:2001:db8:1:2:0:0:0:0/64");
  }

  @Test
  void issuedKey_onlyIssuedKeysCountApart_everyOtherValueCountsAgainstTheAddress() {
    KeyResolver resolver =
        GatewayKeys.issuedKey("X-Api-Key", Set.of("demo-key-1")::contains, ADDRESSES);
    assertThat(key(resolver, exchange("203.0.113.7", "X-Api-Key", "demo-key-1")))
        .isEqualTo(RequestKey.header("X-Api-Key", "demo-key-1").value());
    for (String made : List.of("made-up", "k".repeat(1_100), " ", "ip:198.51.100.1", "")) {
      assertThat(key(resolver, exchange("203.0.113.7", "X-Api-Key", made)))
          .as("'%s'", made.length() > 20 ? made.substring(0, 20) + "..." : made)
          .isEqualTo("ip:203.0.113.7");
    }
    assertThat(key(resolver, exchange("203.0.113.7"))).isEqualTo("ip:203.0.113.7");
  }

  @Test
  void typed_keyThatThrowsOrIsNull_countsAgainstTheAddress() {
    KeyResolver resolver =
        GatewayKeys.typed(
            exchange -> {
              String fault = exchange.getRequest().getHeaders().getFirst("X-Fault");
              if ("throw".equals(fault)) {
                throw new IllegalStateException("no tenant");
              }
              return "null".equals(fault) ? null : RequestKey.custom("tenant");
            },
            ADDRESSES);
    assertThat(key(resolver, exchange("203.0.113.7", "X-Fault", "throw")))
        .isEqualTo("ip:203.0.113.7");
    assertThat(key(resolver, exchange("203.0.113.7", "X-Fault", "throw")))
        .isEqualTo("ip:203.0.113.7");
    assertThat(key(resolver, exchange("203.0.113.7", "X-Fault", "null")))
        .isEqualTo("ip:203.0.113.7");
    assertThat(key(resolver, exchange("203.0.113.7"))).isEqualTo("custom:tenant");
  }

  @Test
  void principalOrAddress_userByName_anonymousByAddress() {
    KeyResolver resolver = GatewayKeys.principalOrAddress(ADDRESSES);
    Principal alice = () -> "alice";
    ServerWebExchange user = exchange("203.0.113.7").mutate().principal(Mono.just(alice)).build();
    assertThat(key(resolver, user)).isEqualTo("principal:alice");
    assertThat(key(resolver, exchange("203.0.113.7"))).isEqualTo("ip:203.0.113.7");
  }

  @Test
  void factories_nullArguments_throwNamingThem() {
    assertThatThrownBy(() -> GatewayKeys.clientAddress(null)).hasMessageContaining("addresses");
    assertThatThrownBy(() -> GatewayKeys.issuedKey(" ", k -> true, ADDRESSES))
        .hasMessageContaining("header");
    assertThatThrownBy(() -> GatewayKeys.typed(null, ADDRESSES)).hasMessageContaining("keys");
  }
}
