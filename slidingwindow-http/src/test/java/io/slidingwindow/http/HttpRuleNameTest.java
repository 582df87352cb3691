package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Rule names: the {@code gateway.} names belong to Spring Cloud Gateway routes (route {@code x} is
 * rule {@code gateway.x}), so no other rule can take one and share a route's windows.
 */
class HttpRuleNameTest {

  @Test
  void gatewayNames_areRefused_namingTheRule() {
    assertThatThrownBy(() -> HttpRule.builder("gateway.x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "name must not start with 'gateway.', which names the rules of Spring Cloud Gateway"
                + " routes, was 'gateway.x'");
    assertThatThrownBy(() -> HttpRule.builder("gateway.gateway.x"))
        .hasMessageContaining("'gateway.gateway.x'");
    assertThatThrownBy(() -> HttpRule.builder("gateway."))
        .hasMessageContaining("must not start with 'gateway.'");
  }

  @Test
  void namesThatOnlyLookLikeGatewayNames_areRules() {
    for (String name :
        new String[] {"gateway", "gateway-x", "gateway:x", "Gateway.x", "api.gateway.x"}) {
      assertThat(HttpRule.builder(name).limit(io.slidingwindow.Limit.parse("1/1s")).build().name())
          .isEqualTo(name);
    }
  }
}
