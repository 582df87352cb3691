package io.slidingwindow.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;

/**
 * The in-process keyed limiter across key overflow, against the oracle: a full table or a full
 * group never lets a key past its limits, and new keys from a few groups cannot lock out the
 * others.
 */
class KeyOverflowPropertiesTest {

  private static final Limit SHORT = Limit.of(3, Duration.ofMillis(100));
  private static final Limit LONG = Limit.exact(5, Duration.ofMillis(400));

  /**
   * Random requests of 12 keys from 4 groups (a key may come from any group, and some keys are
   * their group's own) into a table of few places, with time moving at random: each key's grants,
   * whether its table had room or not, stay within both limits in every interval, by the oracle.
   */
  @Property(tries = 300)
  void overflowingTables_neverGrantAKeyPastItsLimits(
      @ForAll long seed,
      @ForAll @IntRange(min = 1, max = 8) int maxKeys,
      @ForAll @IntRange(min = 1, max = 4) int maxKeysPerGroup,
      @ForAll @LongRange(min = 1_000_000, max = 60_000_000) long maxStepNanos) {
    Random random = new Random(seed);
    FakeTicker ticker = new FakeTicker(random.nextLong());
    long origin = ticker.read();
    KeyedRateLimiter<String> limiter =
        KeyedRateLimiter.builder()
            .limit(SHORT)
            .limit(LONG)
            .ticker(ticker)
            .maxKeys(maxKeys)
            .maxKeysPerGroup(maxKeysPerGroup)
            .build();
    Map<String, List<SlidingLogOracle>> oracles = new HashMap<>();
    int overflows = 0;
    for (int i = 0; i < 600; i++) {
      if (random.nextInt(4) == 0) {
        ticker.advance(random.nextLong(maxStepNanos));
      }
      String group = "g" + random.nextInt(4);
      String key = random.nextInt(5) == 0 ? group : "k" + random.nextInt(12);
      long permits = 1 + random.nextInt(2);
      Decision decision = limiter.decide(key, group, permits);
      overflows += decision.isKeyOverflow() ? 1 : 0;
      if (decision.allowed()) {
        assertThat(decision.isKeyOverflow()).as("REFUSE never grants an untracked key").isFalse();
        long at = ticker.read() - origin;
        for (SlidingLogOracle oracle :
            oracles.computeIfAbsent(
                key, k -> List.of(SlidingLogOracle.of(SHORT), oracleOf(LONG)))) {
          oracle.record(at, permits);
        }
      }
    }
    for (Map.Entry<String, List<SlidingLogOracle>> e : oracles.entrySet()) {
      for (SlidingLogOracle oracle : e.getValue()) {
        assertThat(oracle.maxInAnyWindow())
            .as("key %s, limit %s (seed %d, %d overflows)", e.getKey(), oracle, seed, overflows)
            .isLessThanOrEqualTo(oracle.permits());
      }
    }
  }

  /**
   * Floods of new keys from as many groups as may never fill the table, with the clock frozen (no
   * key ever empties): every request of another group, with a key of its own, is still tracked.
   */
  @Property(tries = 200)
  void floodsFromFewGroups_neverLockOutAnotherGroup(
      @ForAll long seed,
      @ForAll @IntRange(min = 4, max = 200) int maxKeys,
      @ForAll @IntRange(min = 1, max = 20) int maxKeysPerGroup) {
    Random random = new Random(seed);
    int flooding = maxKeys / (maxKeysPerGroup + 1) - 1;
    int others = maxKeys - Math.max(0, flooding) * (maxKeysPerGroup + 1);
    KeyedRateLimiter<String> limiter =
        KeyedRateLimiter.builder()
            .limit(SHORT)
            .ticker(new FakeTicker(random.nextLong()))
            .maxKeys(maxKeys)
            .maxKeysPerGroup(maxKeysPerGroup)
            .build();
    int other = 0;
    for (int i = 0; i < 20 * maxKeys; i++) {
      if (flooding > 0 && (other >= others || random.nextInt(4) != 0)) {
        String group = "attacker" + random.nextInt(flooding);
        String key = random.nextInt(10) == 0 ? group : "flood" + i;
        limiter.decide(key, group, 1);
      } else if (other < others) {
        Decision decision = limiter.decide("client" + other, "group" + other, 1);
        assertThat(decision.isKeyOverflow())
            .as("client %d of %d (seed %d, %d flooding groups)", other, others, seed, flooding)
            .isFalse();
        other++;
      }
    }
    assertThat(other).isEqualTo(others);
  }

  /**
   * Eight threads over 40 keys of 5 groups, into a table of 12 places at most 3 per group, in
   * rounds with the clock frozen inside a round and moved between rounds (so each grant's time is
   * known exactly): every key's grants stay within its limit in every interval.
   */
  @Property(tries = 10)
  void concurrentOverflow_neverGrantsAKeyPastItsLimit(@ForAll long seed) throws Exception {
    FakeTicker ticker = new FakeTicker(0);
    Limit limit = Limit.exact(4, Duration.ofMillis(50));
    KeyedRateLimiter<String> limiter =
        KeyedRateLimiter.builder()
            .limit(limit)
            .ticker(ticker)
            .maxKeys(12)
            .maxKeysPerGroup(3)
            .build();
    Random rounds = new Random(seed);
    Map<Integer, SlidingLogOracle> oracles = new HashMap<>();
    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      for (int round = 0; round < 30; round++) {
        long now = ticker.read();
        List<Future<List<Integer>>> done = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          Random random = new Random(seed * 31 + round * 8L + t);
          done.add(
              pool.submit(
                  () -> {
                    List<Integer> granted = new ArrayList<>();
                    for (int i = 0; i < 200; i++) {
                      int key = random.nextInt(40);
                      if (limiter.decide("k" + key, "g" + (key % 5), 1).allowed()) {
                        granted.add(key);
                      }
                    }
                    return granted;
                  }));
        }
        for (Future<List<Integer>> future : done) {
          for (int key : future.get(60, TimeUnit.SECONDS)) {
            oracles.computeIfAbsent(key, k -> SlidingLogOracle.of(limit)).record(now, 1);
          }
        }
        ticker.advance(rounds.nextInt(40) * 1_000_000L);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(oracles).isNotEmpty();
    oracles.forEach(
        (key, oracle) ->
            assertThat(oracle.maxInAnyWindow())
                .as("key k%d (seed %d)", key, seed)
                .isLessThanOrEqualTo(limit.permits()));
  }

  private static SlidingLogOracle oracleOf(Limit limit) {
    return SlidingLogOracle.of(limit);
  }
}
