package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.servlet.RateLimitEnforcer;
import io.slidingwindow.webmvc.internal.ServletKeys;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;

/** Each property's default is the default of the library builder it feeds. */
class SlidingWindowHttpPropertiesTest {

  private static final Limit LIMIT = Limit.of(5, Duration.ofSeconds(1));

  private final SlidingWindowHttpProperties properties = new SlidingWindowHttpProperties();

  @Test
  void maxKeysPerRule_default_isTheKeyedLimiterBuildersDefault() {
    assertThat(properties.getMaxKeysPerRule()).isEqualTo(KeyedRateLimiter.Builder.DEFAULT_MAX_KEYS);
  }

  @Test
  void ipv6PrefixLength_default_isTheClientIpResolversDefault() {
    assertThat(properties.getIpv6PrefixLength())
        .isEqualTo(ClientIpResolver.DEFAULT_IPV6_PREFIX_LENGTH)
        .isEqualTo(ClientIpResolver.direct().ipv6PrefixLength());
  }

  @Test
  void ruleDefaults_areTheRuleBuildersDefaults() {
    properties.getRules().put("r", rule());
    RuleBinder.Bound binding = RuleBinder.bound(properties, false).get(0);
    HttpRule bound = binding.rule();
    HttpRule built = HttpRule.builder("r").limit(LIMIT).build();

    assertThat(bound.dryRun()).isEqualTo(built.dryRun());
    assertThat(bound.countRefusedAttempts()).isEqualTo(built.countRefusedAttempts());
    assertThat(bound.limits()).isEqualTo(built.limits());
    assertThat(bound.paths()).isEqualTo(built.paths());
    assertThat(bound.cost()).isEqualTo(built.cost());
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/a");
    request.setRemoteAddr("192.0.2.7");
    KeyResolver boundKey =
        ServletKeys.resolver(
            binding.keyProperty(), binding.key(), ClientIpResolver.direct(), name -> null);
    assertThat(boundKey.key(request))
        .as("the enforcer keys a rule added without a key resolver by the client address")
        .isEqualTo(KeyResolver.clientIp(ClientIpResolver.direct()).key(request));
  }

  @Test
  void limitWithoutPrecision_hasLimitsDefaultPrecision() {
    SlidingWindowHttpProperties.LimitSpec spec = new SlidingWindowHttpProperties.LimitSpec();
    spec.setPermits(5L);
    spec.setWindow(Duration.ofSeconds(1));

    assertThat(RuleBinder.limit("p", spec)).isEqualTo(LIMIT);
  }

  @Test
  void pathFirewall_default_isTheEnforcersDefaultStrictFirewall() {
    PathFirewall bound = properties.getPathFirewall().toFirewall();

    assertThat(bound.enabled()).isEqualTo(PathFirewall.strict().enabled());
    assertThat(bound.allowed()).isEqualTo(PathFirewall.strict().allowed());
  }

  @Test
  void rateLimitHeaders_default_isTheEnforcersDefaultOfNoHeaders() throws Exception {
    RateLimitEnforcer byDefault =
        RateLimitEnforcer.builder().rule(HttpRule.builder("r").limit(LIMIT).build()).build();
    MockHttpServletResponse response = new MockHttpServletResponse();
    byDefault.enforce(new MockHttpServletRequest("GET", "/a"), response);

    assertThat(response.getHeader("RateLimit")).isNull();
    assertThat(properties.isRateLimitHeaders()).isFalse();
  }

  private static SlidingWindowHttpProperties.Rule rule() {
    SlidingWindowHttpProperties.LimitSpec spec = new SlidingWindowHttpProperties.LimitSpec();
    spec.setPermits(LIMIT.permits());
    spec.setWindow(LIMIT.window());
    SlidingWindowHttpProperties.Rule rule = new SlidingWindowHttpProperties.Rule();
    rule.getLimits().add(spec);
    return rule;
  }
}
