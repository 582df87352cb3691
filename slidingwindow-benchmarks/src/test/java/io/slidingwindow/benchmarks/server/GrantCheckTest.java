package io.slidingwindow.benchmarks.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GrantCheckTest {

  @Test
  void check_limitReachedButNeverPassed_noViolationAndTheMaximumIsTheLimit() {
    // 3 per 1000 ns: three grants early in each window, the fourth a whole window after the first.
    long[] sent = {0, 10, 20, 1_100, 1_110, 1_120};
    long[] received = {5, 15, 25, 1_105, 1_115, 1_125};

    GrantCheck.Result result = GrantCheck.check(3, 1_000, 0, sent, received);

    assertThat(result.violated()).isFalse();
    assertThat(result.grants()).isEqualTo(6);
    assertThat(result.maxRoundTripNanos()).isEqualTo(5);
    assertThat(result.maxContained()).isEqualTo(3);
    assertThat(result.maxByResponse()).isEqualTo(3);
  }

  @Test
  void check_fourGrantsInsideOneWindow_isAViolationForBothChecks() {
    long[] sent = {0, 100, 200, 300};
    long[] received = {10, 110, 210, 310};

    GrantCheck.Result result = GrantCheck.check(3, 1_000, 0, sent, received);

    assertThat(result.violated()).isTrue();
    assertThat(result.maxContained()).isEqualTo(4);
    assertThat(result.maxByResponse()).isEqualTo(4);
  }

  @Test
  void check_roundTripsThatLetTheServiceDecideAWindowApart_noViolation() {
    // 1 per 1000 ns. A in [0, 900], B in [100, 1500]: the service may have decided A at 0 and B
    // at 1400, a window apart, so nothing is proven wrong although the answers overlap.
    long[] sent = {0, 100};
    long[] received = {900, 1_500};

    GrantCheck.Result result = GrantCheck.check(1, 1_000, 0, sent, received);

    assertThat(result.violated()).isFalse();
    assertThat(result.maxContained()).isEqualTo(1);
    assertThat(result.maxByResponse()).as("round trip 1400 >= window: not checkable").isEqualTo(-1);
  }

  @Test
  void check_responsesCloserThanTheWindowLessTheRoundTrip_isAViolation() {
    // 1 per 1000 ns, round trips of 100: A decided in [-100, 0], B in [750, 850]; at most 950
    // apart, less than the window.
    long[] sent = {-100, 750};
    long[] received = {0, 850};

    GrantCheck.Result result = GrantCheck.check(1, 1_000, 0, sent, received);

    assertThat(result.maxByResponse()).isEqualTo(2);
    assertThat(result.maxContained()).isEqualTo(2);
    assertThat(result.violated()).isTrue();
  }

  @Test
  void check_responsesAWindowLessTheRoundTripApart_noViolation() {
    // As above, but B in [850, 950]: decisions may be 1050 apart.
    long[] sent = {-100, 850};
    long[] received = {0, 950};

    GrantCheck.Result result = GrantCheck.check(1, 1_000, 0, sent, received);

    assertThat(result.violated()).isFalse();
    assertThat(result.maxByResponse()).isEqualTo(1);
    assertThat(result.maxContained()).isEqualTo(1);
  }

  @Test
  void check_slack_shortensTheCheckedWindow() {
    // 1 per 1000 ns, instant answers 995 apart: a violation for exact clocks, not within slack.
    long[] sent = {0, 995};
    long[] received = {0, 995};

    assertThat(GrantCheck.check(1, 1_000, 0, sent, received).violated()).isTrue();
    assertThat(GrantCheck.check(1, 1_000, 10, sent, received).violated()).isFalse();
  }

  @Test
  void check_noGrants_noViolation() {
    GrantCheck.Result result = GrantCheck.check(1, 1_000, 0, new long[0], new long[0]);

    assertThat(result.violated()).isFalse();
    assertThat(result.grants()).isZero();
  }

  @Test
  void maxContained_unsortedInputWithEqualSendTimes_countsEveryContainedGrant() {
    long[] sent = {500, 0, 0, 999, 0};
    long[] received = {600, 10, 999, 1_000, 1_200};

    // [0, 1000) holds the grants received at 10, 999 and 600; 1000 and 1200 end outside it.
    assertThat(GrantCheck.maxContained(sent, received, 1_000)).isEqualTo(3);
  }

  @Test
  void check_badArguments_throwNamingTheParameter() {
    long[] one = {0};
    assertThatThrownBy(() -> GrantCheck.check(0, 1_000, 0, one, one))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("permits");
    assertThatThrownBy(() -> GrantCheck.check(1, 1_000, 1_000, one, one))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("slackNanos");
    assertThatThrownBy(() -> GrantCheck.check(1, 1_000, 0, one, new long[2]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("sentAt and receivedAt");
    assertThatThrownBy(() -> GrantCheck.check(1, 1_000, 0, new long[] {5}, new long[] {4}))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("received before it was sent");
  }
}
