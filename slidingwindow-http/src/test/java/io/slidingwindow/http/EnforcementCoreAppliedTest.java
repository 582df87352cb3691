package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FakeTicker;
import java.lang.reflect.Modifier;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The set of a core's rules applied in a request dispatch ({@link EnforcementCore.Applied}) is the
 * core's own: another core's is refused before anything is counted, and neither it nor an {@link
 * EnforcementCore.Outcome} can be made outside the core.
 */
class EnforcementCoreAppliedTest {

  private static final List<String> PATHS = List.of("/api/a");

  private final FakeTicker ticker = new FakeTicker();
  private final List<String> decided = new ArrayList<>();

  /** A core of one rule, "once", granting one request per minute under the one global key. */
  private EnforcementCore<String> core() {
    return EnforcementCore.<String>builder()
        .limiterFactory(RateLimiterFactory.inMemory(ticker, 100, 100))
        .listener(
            new RateLimitListener() {
              @Override
              public void onAllowed(HttpRule rule, Decision decision) {
                decided.add("allowed " + rule.name());
              }

              @Override
              public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
                decided.add("refused " + rule.name());
              }
            })
        .rule(
            HttpRule.builder("once").limit(Limit.of(1, Duration.ofMinutes(1))).build(),
            request -> RequestKey.global())
        .build();
  }

  @Test
  void enforceAndEnforceAsync_appliedOfAnotherCore_isRefusedAndCountsNothing() {
    EnforcementCore<String> core = core();
    EnforcementCore.Applied foreign = core().newApplied();

    assertThatThrownBy(() -> core.enforce("r", "GET", PATHS, QuotaHeaders::new, foreign))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("made by another core")
        .hasMessageContaining("newApplied()");
    assertThatThrownBy(() -> core.enforceAsync("r", "GET", PATHS, QuotaHeaders::new, foreign))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("made by another core");
    assertThat(foreign.rules().isEmpty()).as("nothing added to the foreign set").isTrue();
    assertThat(decided).as("no rule was applied").isEmpty();
    assertThat(core.enforce("r", "GET", PATHS, QuotaHeaders::new).allowed())
        .as("the rule's one permit is still there")
        .isTrue();
  }

  @Test
  void enforceAndEnforceAsync_nullApplied_isRefused() {
    EnforcementCore<String> core = core();

    assertThatThrownBy(() -> core.enforce("r", "GET", PATHS, QuotaHeaders::new, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("applied must not be null");
    assertThatThrownBy(() -> core.enforceAsync("r", "GET", PATHS, QuotaHeaders::new, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("applied must not be null");
    assertThat(decided).isEmpty();
  }

  /** Each core counts with its own set; a set is shared by the passes over its own core only. */
  @Test
  void enforce_twoCoresInOneDispatch_eachCountsTheRequestOnce() {
    EnforcementCore<String> first = core();
    EnforcementCore<String> second = core();
    EnforcementCore.Applied byFirst = first.newApplied();
    EnforcementCore.Applied bySecond = second.newApplied();

    for (EnforcementCore.Applied applied : List.of(byFirst, bySecond, byFirst, bySecond)) {
      EnforcementCore<String> core = applied == byFirst ? first : second;
      assertThat(core.enforce("r", "GET", PATHS, QuotaHeaders::new, applied).allowed()).isTrue();
    }
    assertThat(decided).containsExactly("allowed once", "allowed once");
    assertThat(first.enforce("r", "GET", PATHS, QuotaHeaders::new, first.newApplied()).allowed())
        .as("a new dispatch counts again")
        .isFalse();
  }

  @Test
  void outcomeAndApplied_haveNoPublicConstructor() {
    for (Class<?> type : List.of(EnforcementCore.Outcome.class, EnforcementCore.Applied.class)) {
      assertThat(type.getConstructors()).as("public constructors of %s", type).isEmpty();
      assertThat(Modifier.isFinal(type.getModifiers())).as("%s is final", type).isTrue();
    }
  }

  @Test
  void outcome_equalParts_areEqualAndPrintAsBefore() {
    EnforcementCore.Outcome passed = EnforcementCore.Outcome.passed(Map.of("a", "1"), null);

    assertThat(passed)
        .isEqualTo(EnforcementCore.Outcome.passed(Map.of("a", "1"), Settlement.none()))
        .hasSameHashCodeAs(EnforcementCore.Outcome.passed(Map.of("a", "1"), null))
        .isNotEqualTo(EnforcementCore.Outcome.PASS);
    assertThat(passed.allowed()).isTrue();
    assertThat(passed.settlement()).isSameAs(Settlement.none());
    assertThat(passed.toString())
        .isEqualTo(
            "Outcome[refusal=null, headers={a=1}, refused=null, settlement="
                + Settlement.none()
                + "]");
    assertThat(Arrays.asList(passed.refusal(), passed.refused())).containsOnlyNulls();
  }
}
