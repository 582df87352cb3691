package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Keys a client chooses: rotated, forged, long; over HTTP on both runtimes. */
class JaxrsKeyAttackTest extends JaxrsServerCase {

  private final ConcurrentLinkedQueue<String> stored = new ConcurrentLinkedQueue<>();
  private final Api api = new Api();

  private void start(JaxrsServers.Implementation runtime) {
    RateLimitFeature feature =
        RateLimitFeature.builder()
            .limiterFactory(recording(stored))
            .keyResolver(
                "issued",
                request -> {
                  String key = request.getHeaderString("X-Api-Key");
                  return key != null && Set.of("demo-key-1").contains(key)
                      ? RequestKey.custom(key)
                      : JaxrsKeyResolver.clientAddress(ClientAddresses.direct()).key(request);
                })
            .build();
    server = JaxrsServers.start(runtime, new ArrayList<>(List.of(api, feature)));
  }

  private int status(String path, String... headers) {
    return Http.get(server.uri(path), headers).statusCode();
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void rotatedUnknownKeys_gainNothing_anIssuedKeyHasItsOwnWindow(
      JaxrsServers.Implementation runtime) {
    start(runtime);
    int granted = 0;
    for (int i = 0; i < 30; i++) {
      if (status("/reports/1", "X-Api-Key", "guess-" + i) == 200) {
        granted++;
      }
    }

    assertThat(granted).as("unknown keys are the one client address").isEqualTo(2);
    assertThat(status("/reports/1", "X-Api-Key", "demo-key-1")).isEqualTo(200);
    assertThat(status("/reports/1", "X-Api-Key", "custom:demo-key-1")).isEqualTo(429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void longHeaderKeys_storedBounded_stillCountedEachAsItself(JaxrsServers.Implementation runtime) {
    start(runtime);
    String longKey = "k".repeat(6_000);

    assertThat(status("/items/1", "X-Api-Key", longKey)).isEqualTo(200);
    assertThat(status("/items/2", "X-Api-Key", longKey)).isEqualTo(200);
    assertThat(status("/items/3", "X-Api-Key", longKey)).isEqualTo(429);
    assertThat(status("/items/4", "X-Api-Key", longKey + "x")).isEqualTo(200);

    assertThat(stored)
        .hasSize(4)
        .allSatisfy(key -> assertThat(key).hasSizeLessThanOrEqualTo(LimiterKeys.MAX_CHARS))
        .allSatisfy(key -> assertThat(key).startsWith(LimiterKeys.DIGEST_PREFIX));
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void newKeysOfOneClient_fillOnlyItsShareOfTheKeyTable_filterAndAnnotation(
      JaxrsServers.Implementation runtime) {
    ClientAddresses proxy = ClientAddresses.trusting(List.of("127.0.0.1"));
    RateLimiterFactory twoKeysPerClient = RateLimiterFactory.inMemory(ticker, 100, 2);
    RateLimitFilter filter =
        RateLimitFilter.builder()
            .limiterFactory(twoKeysPerClient)
            .clientAddresses(proxy)
            .rule(
                HttpRule.builder("product")
                    .path("/v1/product/**")
                    .limit(Limit.parse("2/10s"))
                    .build(),
                JaxrsKeyResolver.header("X-Api-Key", proxy))
            .build();
    RateLimitFeature feature =
        RateLimitFeature.builder()
            .limiterFactory(twoKeysPerClient)
            .clientAddresses(proxy)
            .keyResolver("issued", JaxrsKeyResolver.clientAddress(proxy)) // for Api.report
            .build();
    server = JaxrsServers.start(runtime, new ArrayList<>(List.of(api, filter, feature)));

    for (String path : List.of("/v1/product/1", "/items/1")) {
      for (String key : List.of("k1", "k2")) {
        assertThat(status(path, "X-Forwarded-For", "198.51.100.1", "X-Api-Key", key))
            .as("%s, new key %s", path, key)
            .isEqualTo(200);
      }
      assertThat(status(path, "X-Forwarded-For", "198.51.100.1", "X-Api-Key", "k3"))
          .as("%s, a third new key of the same client", path)
          .isEqualTo(429);
      assertThat(status(path, "X-Forwarded-For", "198.51.100.1"))
          .as("%s, the client's own address key is not counted in its share", path)
          .isEqualTo(200);
      assertThat(status(path, "X-Forwarded-For", "198.51.100.2", "X-Api-Key", "k4"))
          .as("%s, another client behind the same proxy has a share of its own", path)
          .isEqualTo(200);
    }
  }
}
