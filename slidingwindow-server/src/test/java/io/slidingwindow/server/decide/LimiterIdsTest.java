package io.slidingwindow.server.decide;

import static io.slidingwindow.server.decide.TestRequest.descriptor;
import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.server.ConfigException;
import io.slidingwindow.server.config.Configs;
import io.slidingwindow.server.config.RateLimitConfig;
import io.slidingwindow.server.config.Rule;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LimiterIdsTest {

  /**
   * Rule paths join keys and values with {@code _} and levels with {@code .}, as
   * envoyproxy/ratelimit writes them, so two rules of one domain can have one path: {@code user}
   * with value {@code admin} and {@code user_admin} with any value are both {@code user_admin}. In
   * a shared store a client that sends {@code user_admin=admin} must not count against the rule of
   * {@code user=admin}.
   */
  @Test
  void ofRule_sharedStore_rulesWhosePathsReadAlikeNeverShareAnId() throws ConfigException {
    RateLimitConfig config =
        Configs.parse(
            """
            domain: d
            descriptors:
              - key: user
                value: admin
                rate_limit: {unit: minute, requests_per_unit: 1}
              - key: user_admin
                rate_limit: {unit: minute, requests_per_unit: 1}
              - key: a
                descriptors:
                  - key: b_c
                    rate_limit: {unit: minute, requests_per_unit: 1}
                  - key: b
                    value: c
                    rate_limit: {unit: minute, requests_per_unit: 1}
            """);
    List<TestRequest> requests =
        List.of(
            TestRequest.of("d", descriptor("user", "admin")),
            TestRequest.of("d", descriptor("user_admin", "admin")),
            TestRequest.of("d", descriptor("a", "v", "b", "c")),
            TestRequest.of("d", descriptor("a", "v", "b_c", "c")));
    Map<String, String> ids = new HashMap<>();
    for (TestRequest request : requests) {
      Rule rule = config.match("d", request, 0);
      assertThat(rule).as("rule of %s", request).isNotNull();
      String id = LimiterIds.ofRule(LimiterIds.rulePrefix(rule, true), rule, request, 0);
      String earlier =
          ids.put(id, rule.source() + " " + Arrays.toString(request.descriptors().get(0).pairs()));
      assertThat(earlier)
          .as("%s (%s) counts under the id of %s", rule.source(), rule.path(), earlier)
          .isNull();
    }
  }
}
