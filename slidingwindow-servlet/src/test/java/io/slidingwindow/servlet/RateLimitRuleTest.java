package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Limit;
import io.slidingwindow.http.QuotaHeaders;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RateLimitRuleTest {

  private static final Limit LIMIT = Limit.of(1, Duration.ofSeconds(1));

  @Test
  void build_withoutLimits_throwsNamingTheRule() {
    assertThatThrownBy(() -> RateLimitRule.builder("empty").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limits")
        .hasMessageContaining("empty");
  }

  @Test
  void builder_badNameOrMethod_throwsNamingTheValue() {
    assertThatThrownBy(() -> RateLimitRule.builder("has space"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("has space");
    assertThatThrownBy(() -> RateLimitRule.builder("r").methods("GE T"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("GE T");
  }

  @Test
  void matches_noPathsOrMethods_matchesEverything() {
    RateLimitRule rule = RateLimitRule.builder("all").limit(LIMIT).build();
    assertThat(rule.matches("DELETE", "/anything")).isTrue();
    assertThat(rule.matches("GET", "/")).isTrue();
  }

  @Test
  void matches_headOnGetRule_matchesAsGet() {
    RateLimitRule reads = RateLimitRule.builder("reads").methods("get").limit(LIMIT).build();
    assertThat(reads.matches("HEAD", "/a")).isTrue();
    assertThat(reads.matches("head", "/a")).isTrue();
    assertThat(reads.matches("GET", "/a")).isTrue();
    assertThat(reads.matches("POST", "/a")).isFalse();
    RateLimitRule writes = RateLimitRule.builder("writes").methods("POST").limit(LIMIT).build();
    assertThat(writes.matches("HEAD", "/a")).isFalse();
    assertThat(writes.matches(null, "/a")).isFalse();
  }

  @Test
  void enforcerBuild_duplicateRuleNames_throws() {
    RateLimitRule a = RateLimitRule.builder("same").limit(LIMIT).build();
    assertThatThrownBy(() -> RateLimitEnforcer.builder().rule(a).rule(a).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("same");
  }

  @Test
  void retryAfterSeconds_roundsUp() {
    assertThat(QuotaHeaders.retryAfterSecondsOf(Duration.ofNanos(1))).isEqualTo(1);
    assertThat(QuotaHeaders.retryAfterSecondsOf(Duration.ofSeconds(2))).isEqualTo(2);
    assertThat(QuotaHeaders.retryAfterSecondsOf(Duration.ofSeconds(2).plusNanos(1))).isEqualTo(3);
    assertThat(QuotaHeaders.retryAfterSecondsOf(Duration.ofMillis(59_999))).isEqualTo(60);
  }

  @Test
  void policyNames_repeatedWindow_fallsBackToIndex() {
    RateLimitRule rule =
        RateLimitRule.builder("p")
            .limit(Limit.of(5, Duration.ofMillis(500)))
            .limit(Limit.of(9, Duration.ofSeconds(2)))
            .limit(Limit.exact(9, Duration.ofSeconds(2)))
            .build();
    assertThat(QuotaHeaders.policyNames(rule.name(), rule.limits()))
        .containsExactly("p-500ms", "p-2s", "p-3");
  }
}
