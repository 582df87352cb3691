package io.slidingwindow.server.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.server.config.Configs;
import io.slidingwindow.server.config.Rule;
import io.slidingwindow.server.config.TimeUnitName;
import io.slidingwindow.server.decide.Decisions;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Outcome;
import io.slidingwindow.server.decide.Decisions.ReportedLimit;
import io.slidingwindow.server.decide.Decisions.Status;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@link EnvoyResponses} keeps the limits of configured rules only. */
class EnvoyResponsesTest {

  /**
   * Each bad override reported a limit of the client's choosing, kept for good: 10,000 distinct
   * ones filled the cache, and later configured limits were never kept.
   */
  @Test
  void of_aFloodOfDistinctOverrides_leavesTheCacheToConfiguredLimits() throws Exception {
    var field = EnvoyResponses.class.getDeclaredField("LIMITS");
    field.setAccessible(true);
    Map<?, ?> cache = (Map<?, ?>) field.get(null);
    int before = cache.size();

    for (int i = 0; i < 10_001; i++) {
      ReportedLimit chosen = new ReportedLimit("", 1_000 + i, TimeUnitName.UNKNOWN, Duration.ZERO);
      RateLimitResponse response =
          EnvoyResponses.of(
              new Verdict(
                  new Status(
                      Code.OVER_LIMIT,
                      chosen,
                      0,
                      null,
                      null,
                      Decisions.OVERRIDE_TAG,
                      Outcome.BAD_OVERRIDE)));
      assertThat(response.getStatuses(0).getCurrentLimit().getRequestsPerUnit())
          .isEqualTo(1_000 + i);
    }
    Rule rule =
        Configs.parse(
                """
                domain: cache
                descriptors:
                  - key: k
                    rate_limit:
                      unit: minute
                      requests_per_unit: 7
                """)
            .rules()
            .get(0);
    ReportedLimit configured =
        new ReportedLimit("cache-test", 7, TimeUnitName.MINUTE, Duration.ofMinutes(1));
    EnvoyResponses.of(
        new Verdict(new Status(Code.OK, configured, 6, null, rule, rule.path(), Outcome.OK)));

    assertThat(cache.size()).as("the overrides' limits kept").isLessThanOrEqualTo(before + 1);
    assertThat(cache.containsKey(configured)).as("the configured limit kept").isTrue();
  }
}
