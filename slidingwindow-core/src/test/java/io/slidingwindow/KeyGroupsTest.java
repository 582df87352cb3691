package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The group bound of the in-process keyed limiter, and the bound on the length of string keys. */
class KeyGroupsTest {

  private static final long SECOND = 1_000_000_000L;

  private static LocalKeyedRateLimiter<String> limiter(
      ManualTicker ticker, long maxKeys, long maxKeysPerGroup) {
    return (LocalKeyedRateLimiter<String>)
        KeyedRateLimiter.builder()
            .limit(Limit.exact(2, Duration.ofSeconds(10)))
            .ticker(ticker)
            .maxKeys(maxKeys)
            .maxKeysPerGroup(maxKeysPerGroup)
            .<String>build();
  }

  @Test
  void floodOfNewKeysFromOneGroup_fillsOnlyItsShare_othersStillGetIn() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter = limiter(ticker, 100, 10);

    int granted = 0;
    int overflowed = 0;
    for (int i = 0; i < 1_000; i++) {
      Decision decision = limiter.decide("flood-" + i, "ip:attacker", 1);
      granted += decision.allowed() ? 1 : 0;
      overflowed += decision.isKeyOverflow() ? 1 : 0;
    }

    assertThat(granted).as("one grant for each of the 10 keys the group may hold").isEqualTo(10);
    assertThat(overflowed).isEqualTo(990);
    assertThat(limiter.trackedKeys()).isEqualTo(10);
    assertThat(limiter.decide("ip:attacker", "ip:attacker", 1).allowed())
        .as("the group's own key is not counted against it")
        .isTrue();
    for (int client = 0; client < 80; client++) {
      assertThat(limiter.decide("key-" + client, "ip:client-" + client, 1).allowed())
          .as("client %d, another group", client)
          .isTrue();
    }
  }

  @Test
  void fullGroup_refusesItsNewKeysButItsTrackedKeysKeepTheirWindows() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter = limiter(ticker, 100, 2);
    assertThat(limiter.decide("a", "g", 1).allowed()).isTrue();
    assertThat(limiter.decide("b", "g", 1).allowed()).isTrue();

    Decision third = limiter.decide("c", "g", 1);

    assertThat(third.allowed()).isFalse();
    assertThat(third.isKeyOverflow()).isTrue();
    assertThat(limiter.decide("a", "g", 1).allowed()).as("a's second permit").isTrue();
    assertThat(limiter.decide("a", "g", 1).allowed()).as("a is at its limit").isFalse();
    assertThat(limiter.decide("a", "other group", 1).allowed())
        .as("a tracked key keeps its windows whoever presents it")
        .isFalse();
  }

  @Test
  void groupsKeysEmptied_releaseTheirPlaces() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter = limiter(ticker, 100, 2);
    limiter.decide("a", "g", 1);
    limiter.decide("b", "g", 1);
    assertThat(limiter.decide("c", "g", 1).isKeyOverflow()).isTrue();

    ticker.advance(10 * SECOND);
    limiter.cleanUp();

    assertThat(limiter.trackedKeys()).isZero();
    assertThat(limiter.decide("c", "g", 1).allowed()).isTrue();
    assertThat(limiter.decide("d", "g", 1).allowed()).isTrue();
    assertThat(limiter.decide("e", "g", 1).isKeyOverflow()).isTrue();
  }

  @Test
  void fullGroup_newKeyFindsItsEmptiedKeysBySweeping() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter = limiter(ticker, 10, 2);
    limiter.decide("a", "g", 1);
    limiter.decide("b", "g", 1);
    ticker.advance(10 * SECOND);

    assertThat(limiter.decide("c", "g", 1).allowed())
        .as("a and b are empty: the full group sweeps and finds them")
        .isTrue();
  }

  @Test
  void noGroup_isBoundOnlyByTheTable() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter = limiter(ticker, 20, 2);
    for (int i = 0; i < 20; i++) {
      assertThat(limiter.decide("k" + i, 1).allowed()).isTrue();
    }
    assertThat(limiter.decide("k20", 1).isKeyOverflow()).isTrue();
  }

  @Test
  void decideAsync_withGroup_followsTheGroupBound() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter = limiter(ticker, 100, 1);
    assertThat(limiter.decideAsync("a", "g", 1).toCompletableFuture().join().allowed()).isTrue();
    assertThat(limiter.decideAsync("b", "g", 1).toCompletableFuture().join().isKeyOverflow())
        .isTrue();
  }

  @Test
  void defaultGroupBound_isAHundredthOfTheTable() {
    ManualTicker ticker = new ManualTicker(0);
    KeyedRateLimiter<String> limiter =
        KeyedRateLimiter.builder()
            .limit(Limit.of(1, Duration.ofSeconds(1)))
            .ticker(ticker)
            .maxKeys(1_000)
            .build();
    int tracked = 0;
    for (int i = 0; i < 50; i++) {
      tracked += limiter.decide("k" + i, "g", 1).isKeyOverflow() ? 0 : 1;
    }
    assertThat(tracked).isEqualTo(10);
  }

  @Test
  void longStringKeys_sharingTheirFirst256Characters_countApart() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter = limiter(ticker, 100, 100);
    String prefix = "x".repeat(LimiterKeys.MAX_CHARS);

    assertThat(limiter.tryAcquire(prefix + "a", 2)).isTrue();
    assertThat(limiter.tryAcquire(prefix + "b", 2))
        .as("another key: not cut to its prefix")
        .isTrue();
    assertThat(limiter.tryAcquire(prefix + "a", 1)).as("the same long key again").isFalse();
    assertThat(limiter.tryAcquire(LimiterKeys.bounded(prefix + "a"), 1))
        .as("the digest is a key of its own, not the long key's")
        .isTrue();
  }

  @Test
  void rollingCounters_longStringKeys_areStoredBounded() {
    ManualTicker ticker = new ManualTicker(0);
    RollingCounters<String> counters =
        RollingCounters.builder(10, Duration.ofSeconds(1)).ticker(ticker).build();
    String key = "y".repeat(1_100);

    counters.addAndGet(key, 3);

    assertThat(counters.sum(key)).isEqualTo(3);
    assertThat(counters.sum(key.substring(0, LimiterKeys.MAX_CHARS))).isZero();
  }
}
