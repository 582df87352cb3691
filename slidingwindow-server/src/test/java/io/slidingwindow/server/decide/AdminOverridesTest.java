package io.slidingwindow.server.decide;

import static io.slidingwindow.server.decide.TestRequest.descriptor;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Limit;
import io.slidingwindow.server.config.Configs;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Status;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class AdminOverridesTest {

  private static final String CONFIG =
      """
      domain: api
      descriptors:
        - key: api_key
          rate_limit: {window: 10s, precision: 1s, requests_per_unit: 5}
      """;

  private final FakeTicker ticker = new FakeTicker(Long.MAX_VALUE - 5_000_000_000L);

  private static DescriptorKey key(String value) {
    return new DescriptorKey("api", List.of(new DescriptorKey.Entry("api_key", value)));
  }

  private static Status decide(Decider decider, String value, long hits) {
    return decider.decide(TestRequest.of("api", descriptor("api_key", value).hits(hits))).status(0);
  }

  @Test
  void set_raised_takesMoreHitsThanTheRuleAndReportsTheOverride() throws Exception {
    Decider decider = TestRequest.decider(Configs.parse(CONFIG), ticker, 1000);
    assertThat(decide(decider, "k", 10).code()).isEqualTo(Code.OVER_LIMIT);

    decider.adminOverrides().set(key("k"), List.of(Limit.parse("20/10s")));

    Status status = decide(decider, "k", 10);
    assertThat(status.code()).isEqualTo(Code.OK);
    assertThat(status.limit().requestsPerUnit()).isEqualTo(20);
    assertThat(status.remaining()).isEqualTo(10);
    assertThat(decide(decider, "other", 10).code()).isEqualTo(Code.OVER_LIMIT);
  }

  @Test
  void set_lowered_refusesMoreHitsThanItsLimitWithoutCounting() throws Exception {
    Decider decider = TestRequest.decider(Configs.parse(CONFIG), ticker, 1000);
    decider.adminOverrides().set(key("k"), List.of(Limit.parse("2/10s")));

    Status refused = decide(decider, "k", 3);

    assertThat(refused.code()).isEqualTo(Code.OVER_LIMIT);
    assertThat(refused.limit().requestsPerUnit()).isEqualTo(2);
    assertThat(decide(decider, "k", 1).code()).isEqualTo(Code.OK);
    assertThat(decide(decider, "k", 1).code()).isEqualTo(Code.OK);
    assertThat(decide(decider, "k", 1).code()).isEqualTo(Code.OVER_LIMIT);
  }

  @Test
  void set_aLimitOnTheRulesWindow_isCountedAtTheRulesPrecision() throws Exception {
    Decider decider = TestRequest.decider(Configs.parse(CONFIG), ticker, 1000);
    decider.adminOverrides().set(key("k"), List.of(Limit.parse("20/10s"), Limit.parse("50/1m")));

    Limit[] counted =
        decider
            .adminOverrides()
            .peek(key("k"))
            .toCompletableFuture()
            .join()
            .quota()
            .limits()
            .stream()
            .map(usage -> usage.limit())
            .toArray(Limit[]::new);

    assertThat(counted[0].precision()).isEqualTo(Duration.ofSeconds(1));
    assertThat(counted[1].precision()).isEqualTo(Limit.parse("50/1m").precision());
  }

  @Test
  void set_aDescriptorCountedUnderASharedWildcard_isRefusedNamingTheEntry() throws Exception {
    Decider decider =
        TestRequest.decider(Configs.resources("envoy-config/edge.yaml"), ticker, 1000);
    DescriptorKey file =
        new DescriptorKey("edge_proxy", List.of(new DescriptorKey.Entry("files", "files/a.pdf")));

    assertThatThrownBy(() -> decider.adminOverrides().set(file, List.of(Limit.parse("9/1h"))))
        .isInstanceOf(BadRequest.class)
        .hasMessageContaining("entries[0].value")
        .hasMessageContaining("share_threshold");
    assertThat(decider.adminOverrides().size()).isZero();
  }

  /**
   * The wildcard's own spelling is one more value that the wildcard counts with every other: an
   * override or a reset of it would act on the count that all of them share.
   */
  @Test
  void setAndReset_theSpellingOfASharedWildcard_areRefusedAsForAnyValueItMatches()
      throws Exception {
    Decider decider =
        TestRequest.decider(Configs.resources("envoy-config/edge.yaml"), ticker, 1000);
    DescriptorKey spelt =
        new DescriptorKey("edge_proxy", List.of(new DescriptorKey.Entry("files", "files/*")));

    assertThatThrownBy(() -> decider.adminOverrides().set(spelt, List.of(Limit.parse("100/1h"))))
        .isInstanceOf(BadRequest.class)
        .hasMessageContaining("share_threshold");
    assertThatThrownBy(() -> decider.adminOverrides().reset(spelt))
        .isInstanceOf(BadRequest.class)
        .hasMessageContaining("share_threshold");
    assertThat(decider.adminOverrides().size()).isZero();
  }

  @Test
  void apply_aConfigWithoutTheRule_leavesTheOverrideInactiveUntilItReturns() throws Exception {
    Decider decider = TestRequest.decider(Configs.parse(CONFIG), ticker, 1000);
    decider.adminOverrides().set(key("k"), List.of(Limit.parse("20/10s")));

    decider.apply(
        Configs.parse(
            "domain: api\ndescriptors:\n  - key: user\n"
                + "    rate_limit: {unit: second, requests_per_unit: 1}\n"));
    assertThat(decider.adminOverrides().list().get(0).rule()).isNull();
    decider.apply(Configs.parse(CONFIG));

    assertThat(decider.adminOverrides().list().get(0).rule().path()).isEqualTo("api_key");
    assertThat(decide(decider, "k", 20).code()).isEqualTo(Code.OK);
  }
}
