package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class QuotaHeadersTest {

  private static final Limit SHORT = Limit.of(5, Duration.ofSeconds(2));
  private static final Limit LONG = Limit.of(20, Duration.ofSeconds(10));
  private static final List<Limit> BOTH = List.of(SHORT, LONG);

  @Test
  void headers_noDecision_areEmpty() {
    assertThat(new QuotaHeaders().headers()).isEmpty();
  }

  @Test
  void headers_grantOnSeveralLimits_listEveryPolicyAndTheBindingItem() {
    QuotaHeaders headers = new QuotaHeaders();
    headers.add(
        BOTH,
        QuotaHeaders.policyNames("product", BOTH),
        Decision.granted(3, Duration.ofMillis(1_500), SHORT));

    assertThat(headers.headers())
        .containsExactly(
            Map.entry(
                QuotaHeaders.RATE_LIMIT_POLICY,
                "\"product-2s\";q=5;w=2, \"product-10s\";q=20;w=10"),
            Map.entry(QuotaHeaders.RATE_LIMIT, "\"product-2s\";r=3;t=2"));
  }

  @Test
  void headers_keyOnAPlan_tellThePlansBindingLimitNotTheRules() {
    Limit pro = Limit.of(100, Duration.ofSeconds(10));
    QuotaHeaders headers = new QuotaHeaders();
    headers.add(
        BOTH,
        QuotaHeaders.policyNames("product", BOTH),
        Decision.granted(97, Duration.ofSeconds(4), pro),
        "product");

    assertThat(headers.headers())
        .containsExactly(
            Map.entry(QuotaHeaders.RATE_LIMIT_POLICY, "\"product\";q=100;w=10"),
            Map.entry(QuotaHeaders.RATE_LIMIT, "\"product\";r=97;t=4"));
  }

  @Test
  void headers_onRefusal_leaveOutTExceedingRetryAfter() {
    Limit one = Limit.of(1, Duration.ofSeconds(60));
    QuotaHeaders headers = new QuotaHeaders();
    headers.add(List.of(one), List.of("site"), Decision.granted(0, Duration.ofSeconds(60), one));
    headers.add(
        List.of(SHORT),
        List.of("x"),
        Decision.refused(0, Duration.ofMillis(300), Duration.ofSeconds(2), SHORT));

    assertThat(headers.headers(1).get(QuotaHeaders.RATE_LIMIT))
        .isEqualTo("\"site\";r=0, \"x\";r=0;t=1");
  }

  @Test
  void retryAfterSeconds_afterEnforcingGrantThatLeftNoPermit_isRaisedToItsBound() {
    QuotaHeaders headers = new QuotaHeaders();
    headers.granted(BOTH, Decision.granted(0, Duration.ofMillis(1_200), SHORT));

    // the other limit (10 s window, 10 ms precision) may have run out with the same request
    assertThat(headers.retryAfterSeconds(Duration.ofMillis(100))).isEqualTo(11);
  }

  @Test
  void retryAfterSeconds_afterGrantWithPermitsLeft_isTheRefusalsOwnWait() {
    QuotaHeaders headers = new QuotaHeaders();
    headers.granted(BOTH, Decision.granted(1, Duration.ofSeconds(9), SHORT));

    assertThat(headers.retryAfterSeconds(Duration.ofMillis(1_001))).isEqualTo(2);
  }

  @Test
  void nextPermitBoundNanos_singleLimit_isItsReset() {
    Decision grant = Decision.granted(0, Duration.ofMillis(700), SHORT);
    assertThat(QuotaHeaders.nextPermitBoundNanos(List.of(SHORT), grant))
        .isEqualTo(Duration.ofMillis(700).toNanos());
  }
}
