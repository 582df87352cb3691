package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * MEASUREMENT HARNESS, not part of the build's tests (its name does not end in Test): prints the
 * heap cost of each tracked key and how eviction of emptied keys proceeds. Figures vary with the
 * JVM and are never asserted. Run it alone:
 *
 * <pre>
 * ./mvnw -q -o -pl slidingwindow-servlet -am test -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dtest=KeyMemoryMeasurement
 * </pre>
 */
class KeyMemoryMeasurement {

  private static final int KEYS = 200_000;
  private static final Limit LIMIT = Limit.of(5, Duration.ofSeconds(10));
  private static final Pattern TRACKING = Pattern.compile("tracking (\\d+) of");

  @Test
  void measure() throws Exception {
    measure(
        "X-Api-Key of 32 hex characters",
        KeyResolver.header("X-Api-Key", ClientIpResolver.direct()),
        true);
    measure("IPv4 client address", KeyResolver.clientIp(ClientIpResolver.direct()), false);
  }

  private void measure(String what, KeyResolver key, boolean header) throws Exception {
    FakeTicker ticker = new FakeTicker();
    List<KeyedRateLimiter<String>> limiters = new ArrayList<>();
    RateLimiterFactory memory = RateLimiterFactory.inMemory(ticker, KEYS);
    RateLimitEnforcer enforcer =
        RateLimitEnforcer.builder()
            .rule(RateLimitRule.builder("measured").key(key).limit(LIMIT).build())
            .limiterFactory(
                (name, limits, countRefused) -> {
                  KeyedRateLimiter<String> limiter = memory.create(name, limits, countRefused);
                  limiters.add(limiter);
                  return limiter;
                })
            .build();
    KeyedRateLimiter<String> limiter = limiters.get(0);
    Random random = new Random(1);
    long before = usedHeap();
    for (int i = 0; i < KEYS; i++) {
      enforcer.enforce(request(header, random, i), new FakeHttp.Response().servlet);
    }
    long after = usedHeap();
    assertThat(tracked(limiter)).isEqualTo(KEYS);
    System.out.printf(
        Locale.ROOT,
        "%s: %d keys tracked, heap +%d bytes, %.0f bytes per key (limit %s)%n",
        what,
        KEYS,
        after - before,
        (after - before) / (double) KEYS,
        LIMIT);

    // Every window is empty after window + precision; nothing is evicted until something asks.
    ticker.advance(LIMIT.window().plusNanos(LIMIT.precisionNanos()));
    assertThat(tracked(limiter)).isEqualTo(KEYS);
    int requests = 0;
    while (tracked(limiter) > requests && requests < 10 * KEYS) {
      enforcer.enforce(request(header, random, KEYS + requests), new FakeHttp.Response().servlet);
      requests++;
    }
    System.out.printf(
        Locale.ROOT,
        "%s: after the windows emptied, %d requests with new keys evicted all %d old keys"
            + " (%.1f per request)%n",
        what,
        requests,
        KEYS,
        KEYS / (double) requests);

    // A full table of emptied keys, evicted at once by cleanUp().
    ticker.advance(LIMIT.window().plusNanos(LIMIT.precisionNanos()));
    for (int i = tracked(limiter); i < KEYS; i++) {
      enforcer.enforce(request(header, random, 2 * KEYS + i), new FakeHttp.Response().servlet);
    }
    ticker.advance(LIMIT.window().plusNanos(LIMIT.precisionNanos()));
    long start = System.nanoTime();
    limiter.cleanUp();
    long nanos = System.nanoTime() - start;
    assertThat(tracked(limiter)).isZero();
    long emptied = usedHeap();
    System.out.printf(
        Locale.ROOT,
        "%s: cleanUp() evicted %d emptied keys in %.1f ms; heap back to +%d bytes%n",
        what,
        KEYS,
        nanos / 1e6,
        emptied - before);
  }

  private static jakarta.servlet.http.HttpServletRequest request(
      boolean header, Random random, int i) {
    if (header) {
      String apiKey =
          Long.toHexString(random.nextLong() | Long.MIN_VALUE)
              + Long.toHexString(random.nextLong() | Long.MIN_VALUE);
      // From 1 000 addresses, 200 keys each: within each address's share of the table.
      int client = i % 1_000;
      return FakeHttp.request(
          "203.0." + (113 + client / 256) + "." + (client % 256), "/api", "X-Api-Key", apiKey);
    }
    return FakeHttp.request(
        "10." + (i >>> 16 & 0xFF) + "." + (i >>> 8 & 0xFF) + "." + (i & 0xFF), "/api");
  }

  private static int tracked(KeyedRateLimiter<String> limiter) {
    Matcher m = TRACKING.matcher(limiter.toString());
    if (!m.find()) {
      throw new IllegalStateException("no key count in " + limiter);
    }
    return Integer.parseInt(m.group(1));
  }

  private static long usedHeap() {
    for (int i = 0; i < 4; i++) {
      System.gc();
    }
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }
}
