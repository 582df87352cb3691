package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A flood of client-chosen keys driven through the enforcer (fake requests, no container): one
 * address holds at most its share of the in-memory table, the table never tracks more than its
 * bound, new keys are refused while it is full, emptied keys make room again, and rotating IPv6
 * addresses inside one /64 buys nothing (were each address a key, the table would fill and 10 000
 * of them would be granted).
 */
class KeyCardinalityTest {

  private static final int SPOOFED = 1_000_000;
  private static final int ROTATED = 200_000;
  private static final int MAX_KEYS = 10_000;
  private static final Limit LIMIT = Limit.of(5, Duration.ofSeconds(10));

  private final FakeTicker ticker = new FakeTicker(Long.MAX_VALUE - 5_000_000_000L);

  private RateLimitEnforcer enforcer(KeyResolver key) {
    return RateLimitEnforcer.builder()
        .rule(RateLimitRule.builder("flood").key(key).limit(LIMIT).build())
        .limiterFactory(RateLimiterFactory.inMemory(ticker, MAX_KEYS))
        .build();
  }

  private static boolean allowed(RateLimitEnforcer enforcer, String peer, String... headers)
      throws Exception {
    return enforcer.enforce(
        FakeHttp.request(peer, "/api", headers), new FakeHttp.Response().servlet);
  }

  /**
   * A million made-up API keys from one address hold only that address's share of the table (one
   * hundredth): exactly that many are granted, and every other client's new key still gets in.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void enforce_aMillionSpoofedApiKeysFromOneAddress_holdOnlyItsShareAndOthersStillGetIn()
      throws Exception {
    RateLimitEnforcer enforcer =
        enforcer(KeyResolver.header("X-Api-Key", ClientIpResolver.direct()));
    int granted = 0;
    for (int i = 0; i < SPOOFED; i++) {
      FakeHttp.Response response = new FakeHttp.Response();
      if (enforcer.enforce(
          FakeHttp.request("203.0.113.9", "/api", "X-Api-Key", "k" + i), response.servlet)) {
        granted++;
      } else {
        assertThat(response.status).isEqualTo(429);
      }
    }
    assertThat(granted).isEqualTo(MAX_KEYS / 100);
    assertThat(allowed(enforcer, "203.0.113.9")).as("the address's own key").isTrue();
    for (int client = 0; client < MAX_KEYS / 2; client++) {
      assertThat(allowed(enforcer, address(client), "X-Api-Key", "own" + client))
          .as("client %d", client)
          .isTrue();
    }
  }

  /**
   * Made-up API keys from many addresses fill the table: exactly {@code MAX_KEYS} distinct keys are
   * granted (one more tracked key would have meant one more grant), and once their windows are
   * empty every new key is tracked again.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void enforce_spoofedApiKeysFromManyAddresses_trackAtMostMaxKeysAndRecoverOnceTheyEmpty()
      throws Exception {
    RateLimitEnforcer enforcer =
        enforcer(KeyResolver.header("X-Api-Key", ClientIpResolver.direct()));
    int granted = 0;
    for (int i = 0; i < 500_000; i++) {
      FakeHttp.Response response = new FakeHttp.Response();
      if (enforcer.enforce(
          FakeHttp.request(address(i % 500), "/api", "X-Api-Key", "k" + i), response.servlet)) {
        granted++;
      }
    }
    assertThat(granted).isEqualTo(MAX_KEYS);

    ticker.advance(LIMIT.window().plusNanos(LIMIT.precisionNanos()));
    int fresh = 0;
    for (int i = 0; i < 2 * MAX_KEYS; i++) {
      fresh += allowed(enforcer, address(i % 500), "X-Api-Key", "fresh" + i) ? 1 : 0;
    }
    assertThat(fresh).isEqualTo(MAX_KEYS);
  }

  private static String address(int client) {
    return "198.51." + (client >>> 8) + "." + (client & 0xFF);
  }

  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void enforce_manyIpv6AddressesOfOnePrefix_shareOneQuota() throws Exception {
    RateLimitEnforcer enforcer =
        enforcer(KeyResolver.clientIp(ClientIpResolver.trusting(List.of("10.0.0.0/8"))));
    int granted = 0;
    for (int i = 0; i < ROTATED; i++) {
      String hop =
          "2001:db8:7:8:"
              + Integer.toHexString(i >>> 16)
              + ":"
              + Integer.toHexString(i & 0xFFFF)
              + "::1";
      FakeHttp.Response response = new FakeHttp.Response();
      if (enforcer.enforce(
          FakeHttp.request("10.0.0.2", "/api", "X-Forwarded-For", "6.6.6.6, " + hop),
          response.servlet)) {
        granted++;
      }
    }
    assertThat(granted).isEqualTo(LIMIT.permits());
    // Another /64 and an IPv4 client each still have their own quota.
    assertThat(allowed(enforcer, "10.0.0.2", "X-Forwarded-For", "2001:db8:7:9::1")).isTrue();
    assertThat(allowed(enforcer, "198.51.100.8")).isTrue();
  }
}
