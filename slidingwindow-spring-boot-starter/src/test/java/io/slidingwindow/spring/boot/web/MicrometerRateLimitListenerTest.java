package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MicrometerRateLimitListenerTest {

  private static final Limit LIMIT = Limit.of(1, Duration.ofSeconds(1));
  private static final Decision GRANT = Decision.granted(0, Duration.ofSeconds(1), LIMIT);
  private static final Decision REFUSAL =
      Decision.refused(0, Duration.ofSeconds(1), Duration.ofSeconds(1), LIMIT);

  @Test
  void events_countedPerRuleOutcomeAndMode() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MicrometerRateLimitListener listener = new MicrometerRateLimitListener(registry);
    HttpRule enforcing = HttpRule.builder("a").limit(LIMIT).build();
    HttpRule trial = HttpRule.builder("b").limit(LIMIT).dryRun(true).build();

    listener.onAllowed(enforcing, GRANT);
    listener.onAllowed(enforcing, GRANT);
    listener.onRefused(enforcing, REFUSAL, false);
    listener.onError(enforcing, new IllegalStateException("down"));
    listener.onRefused(trial, REFUSAL, true);

    assertThat(count(registry, "a", "allowed", "enforce")).isEqualTo(2);
    assertThat(count(registry, "a", "refused", "enforce")).isEqualTo(1);
    assertThat(count(registry, "a", "errored", "enforce")).isEqualTo(1);
    assertThat(count(registry, "b", "refused", "dry-run")).isEqualTo(1);
    assertThat(
            registry
                .find(MicrometerRateLimitListener.METRIC)
                .tags("rule", "b", "outcome", "allowed")
                .counter())
        .isNull();
  }

  @Test
  void onRule_registersTheRulesThreeCountersAtZero() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MicrometerRateLimitListener listener = new MicrometerRateLimitListener(registry);
    listener.onRule(HttpRule.builder("a").limit(LIMIT).build());
    listener.onRule(HttpRule.builder("b").limit(LIMIT).dryRun(true).build());
    for (String outcome : new String[] {"allowed", "refused", "errored"}) {
      assertThat(count(registry, "a", outcome, "enforce")).isZero();
      assertThat(count(registry, "b", outcome, "dry-run")).isZero();
    }
    assertThat(registry.find(MicrometerRateLimitListener.METRIC).counters()).hasSize(6);
  }

  @Test
  void onKeyOverflow_countedPerRuleFromZero() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MicrometerRateLimitListener listener = new MicrometerRateLimitListener(registry);
    HttpRule rule = HttpRule.builder("keys").limit(LIMIT).build();
    listener.onRule(rule);
    assertThat(overflows(registry, "keys")).isZero();

    listener.onKeyOverflow(rule);
    listener.onKeyOverflow(rule);

    assertThat(overflows(registry, "keys")).isEqualTo(2);
  }

  private static double overflows(SimpleMeterRegistry registry, String rule) {
    return registry
        .get(MicrometerRateLimitListener.KEY_OVERFLOWS_METRIC)
        .tags("rule", rule)
        .counter()
        .count();
  }

  @Test
  void onRejectedPath_countsTheFirewallsRefusalsApartFromEveryRule() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    MicrometerRateLimitListener listener = new MicrometerRateLimitListener(registry);
    assertThat(registry.get(MicrometerRateLimitListener.REJECTED_PATHS_METRIC).counter().count())
        .isZero();

    listener.onRejectedPath("GET", "/v1/product/..;/admin", "a path parameter (';')");
    listener.onRejectedPath("POST", "/v1//product", "an empty segment ('//')");

    assertThat(registry.get(MicrometerRateLimitListener.REJECTED_PATHS_METRIC).counter().count())
        .isEqualTo(2);
    assertThat(
            registry
                .get(MicrometerRateLimitListener.REJECTED_PATHS_METRIC)
                .counter()
                .getId()
                .getTags())
        .isEmpty();
    assertThat(registry.find(MicrometerRateLimitListener.METRIC).counters()).isEmpty();
  }

  @Test
  void constructor_nullRegistry_throws() {
    assertThatThrownBy(() -> new MicrometerRateLimitListener(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("registry");
  }

  private static double count(
      SimpleMeterRegistry registry, String rule, String outcome, String mode) {
    return registry
        .get(MicrometerRateLimitListener.METRIC)
        .tags("rule", rule, "outcome", outcome, "mode", mode)
        .counter()
        .count();
  }
}
