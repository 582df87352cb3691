package io.slidingwindow;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLongArray;
import org.junit.jupiter.api.Test;

class KeyedRateLimiterTest {

  private static final long SECOND = 1_000_000_000L;

  private static LocalKeyedRateLimiter<String> limiter(
      ManualTicker ticker, Limit limit, long maxKeys, KeyOverflow overflow) {
    return (LocalKeyedRateLimiter<String>)
        KeyedRateLimiter.builder()
            .limit(limit)
            .ticker(ticker)
            .maxKeys(maxKeys)
            .onKeyOverflow(overflow)
            .<String>build();
  }

  /**
   * Rounds of 200 000 calls on tracked keys after a warm-up: at least one round must allocate
   * nothing (one object per call would show in every round; JVM noise may touch a round or two).
   */
  @Test
  void tryAcquire_trackedKeys_allocatesNothing() {
    ManualTicker ticker = new ManualTicker(0);
    assertAllocatesNothing(
        ticker, limiter(ticker, Limit.of(1_000, Duration.ofMillis(10)), 10, KeyOverflow.REFUSE));
  }

  /** Keys of several limits, one of them exact, whose runs take two longs each: the same. */
  @Test
  void tryAcquire_trackedKeysOfTwoLimitsOneExact_allocatesNothing() {
    ManualTicker ticker = new ManualTicker(0);
    KeyedRateLimiter<String> limiter =
        KeyedRateLimiter.builder()
            .limit(Limit.of(1_000, Duration.ofMillis(10)))
            .limit(Limit.exact(50, Duration.ofMillis(1)))
            .ticker(ticker)
            .maxKeys(10)
            .build();
    assertAllocatesNothing(ticker, limiter);
  }

  /**
   * Rounds of 200 000 calls on tracked keys after a warm-up: at least one round must allocate
   * nothing (one object per call would show in every round; JVM noise may touch a round or two).
   */
  private static void assertAllocatesNothing(
      ManualTicker ticker, KeyedRateLimiter<String> limiter) {
    String[] keys = {"a", "b", "c"};
    long[] granted = new long[1];
    List<Long> allocated =
        Allocations.perRound(
            5,
            () -> {
              for (int i = 0; i < 200_000; i++) {
                if (limiter.tryAcquire(keys[i % keys.length], 1)) {
                  granted[0]++;
                }
                ticker.advance(1_000);
              }
            });
    assertThat(allocated).as("bytes allocated per round of 200 000 calls").contains(0L);
    assertThat(allocated).allMatch(bytes -> bytes < 200_000, "less than a byte per call");
    assertThat(granted[0]).isPositive();
  }

  /** A backend without a key table: answers every key alike and records what it was asked. */
  private static final class Recording implements KeyedRateLimiter<String> {
    final List<String> asked = new ArrayList<>();
    final Decision answer =
        Decision.granted(3, Duration.ofSeconds(1), Limit.of(5, Duration.ofSeconds(1)));

    @Override
    public boolean tryAcquire(String key, long permits) {
      asked.add("tryAcquire " + key + " " + permits);
      return true;
    }

    @Override
    public Decision decide(String key, long permits) {
      asked.add("decide " + key + " " + permits);
      return answer;
    }

    @Override
    public List<Limit> limits() {
      return List.of(answer.limit());
    }
  }

  @Test
  void defaults_withGroup_theGroupIgnoredAndTheKeyDecided() {
    Recording backend = new Recording();
    assertThat(backend.decide("k", "g", 2)).isSameAs(backend.answer);
    assertThat(backend.decideAsync("k", "g", 3).toCompletableFuture().join())
        .isSameAs(backend.answer);
    assertThat(backend.tryAcquire("k")).isTrue();
    backend.cleanUp();
    assertThat(backend.asked).containsExactly("decide k 2", "decide k 3", "tryAcquire k 1");
  }

  @Test
  void decideAsync_inMemory_isCompleteAtOnceAndCountsLikeDecide() {
    ManualTicker ticker = new ManualTicker(0);
    KeyedRateLimiter<String> limiter =
        limiter(ticker, Limit.of(2, Duration.ofSeconds(1)), 10, KeyOverflow.REFUSE);
    var first = limiter.decideAsync("a", 1).toCompletableFuture();
    assertThat(first).isDone();
    assertThat(first.join().allowed()).isTrue();
    assertThat(first.join().remaining()).isEqualTo(1);
    assertThat(limiter.decide("a", 1).allowed()).isTrue();
    Decision refused = limiter.decideAsync("a", 1).toCompletableFuture().getNow(null);
    assertThat(refused).isNotNull();
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.retryAfter()).isPositive();
    assertThat(limiter.decideAsync("b", 1).toCompletableFuture().getNow(null).allowed()).isTrue();
    ticker.advance(SECOND + Limit.of(2, Duration.ofSeconds(1)).precisionNanos());
    assertThat(limiter.decideAsync("a", 1).toCompletableFuture().getNow(null).allowed()).isTrue();
  }

  @Test
  void decideAsync_invalidPermits_throwsAtOnceNamingTheValue() {
    KeyedRateLimiter<String> limiter =
        limiter(new ManualTicker(0), Limit.of(2, Duration.ofSeconds(1)), 10, KeyOverflow.REFUSE);
    assertThatThrownBy(() -> limiter.decideAsync("a", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("0");
    assertThatThrownBy(() -> limiter.decideAsync(null, 1))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void keys_areLimitedIndependently() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter =
        limiter(ticker, Limit.exact(2, Duration.ofSeconds(1)), 10, KeyOverflow.REFUSE);

    assertThat(limiter.tryAcquire("a", 2)).isTrue();
    assertThat(limiter.tryAcquire("a")).isFalse();
    assertThat(limiter.tryAcquire("b", 2)).isTrue();
    assertThat(limiter.trackedKeys()).isEqualTo(2);
  }

  @Test
  void cleanUp_evictsOnlyKeysWhoseWindowsAreEmpty() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter =
        limiter(ticker, Limit.exact(1, Duration.ofSeconds(1)), 10, KeyOverflow.REFUSE);
    limiter.tryAcquire("old");
    ticker.advance(SECOND / 2);
    limiter.tryAcquire("young");

    ticker.advance(SECOND / 2);
    limiter.cleanUp();

    assertThat(limiter.trackedKeys()).isEqualTo(1);
    assertThat(limiter.tryAcquire("young")).as("its grant still counts: not forgotten").isFalse();
    assertThat(limiter.tryAcquire("old")).isTrue();
  }

  @Test
  void fullTable_refusesNewKeysButNeverForgetsLiveOnes() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter =
        limiter(ticker, Limit.exact(1, Duration.ofSeconds(1)), 2, KeyOverflow.REFUSE);
    limiter.tryAcquire("a");
    limiter.tryAcquire("b");

    Decision overflow = limiter.decide("c", 1);
    assertThat(overflow.allowed()).isFalse();
    assertThat(overflow.isKeyOverflow()).isTrue();
    assertThat(overflow.retryAfter()).isEqualTo(Duration.ofSeconds(1));
    assertThat(limiter.decide("a", 1).isKeyOverflow()).as("a tracked key's refusal").isFalse();
    assertThat(limiter.tryAcquire("c")).isFalse();
    assertThat(limiter.tryAcquire("a")).as("a is still limited").isFalse();

    ticker.advance(SECOND);
    assertThat(limiter.tryAcquire("c")).as("a and b emptied, so c finds room").isTrue();
    assertThat(limiter.trackedKeys()).isLessThanOrEqualTo(2);
  }

  /**
   * With the table full, a new key examines a bounded number of tracked keys, continuing
   * round-robin, so successive new keys reach every empty key; cleanUp evicts them all at once.
   */
  @Test
  void fullTableWithSomeEmptyKeys_newKeysFindThemWithinAFewRequests() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter =
        limiter(ticker, Limit.exact(2, Duration.ofSeconds(1)), 100, KeyOverflow.REFUSE);
    for (int k = 0; k < 100; k++) {
      assertThat(limiter.tryAcquire("k" + k)).isTrue();
    }
    ticker.set(SECOND / 2);
    for (int k = 0; k < 90; k++) {
      assertThat(limiter.tryAcquire("k" + k)).isTrue(); // keeps k0..k89 alive past 1 s
    }
    ticker.set(SECOND + SECOND / 5); // k90..k99 are empty now

    int admitted = 0;
    for (int attempt = 0; attempt < 100 && admitted < 10; attempt++) {
      if (limiter.tryAcquire("new" + attempt)) {
        admitted++;
      }
    }
    assertThat(admitted).as("every empty key was reached within 100 requests").isEqualTo(10);
    assertThat(limiter.trackedKeys()).isEqualTo(100);
    for (int k = 0; k < 90; k++) {
      assertThat(limiter.tryAcquire("k" + k, 2))
          .as("k%d still counts its grant: never evicted", k)
          .isFalse();
    }
  }

  @Test
  void fullTable_allowUntracked_grantsNewKeysWithoutCountingThem() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter =
        limiter(ticker, Limit.exact(1, Duration.ofSeconds(1)), 1, KeyOverflow.ALLOW_UNTRACKED);
    limiter.tryAcquire("a");

    assertThat(limiter.tryAcquire("b")).isTrue();
    assertThat(limiter.tryAcquire("b")).isTrue();
    Decision untracked = limiter.decide("b", 1);
    assertThat(untracked.allowed()).isTrue();
    assertThat(untracked.isKeyOverflow()).isTrue();
    assertThat(untracked.remaining()).isZero();
    assertThat(limiter.trackedKeys()).isEqualTo(1);
  }

  /**
   * A caller whose clock read is older than an eviction must not record a grant at a time when the
   * evicted key's permits were still in the window: a new entry starts at the eviction's time.
   */
  @Test
  void staleClockReadAfterEviction_isTakenAsTheEvictionTime() {
    ManualTicker ticker = new ManualTicker(0);
    LocalKeyedRateLimiter<String> limiter =
        limiter(ticker, Limit.exact(1, Duration.ofMillis(100)), 10, KeyOverflow.REFUSE);
    assertThat(limiter.tryAcquire("a")).isTrue(); // at 0
    ticker.set(120_000_000);
    limiter.cleanUp(); // "a" is empty at 120 ms and evicted
    assertThat(limiter.trackedKeys()).isZero();

    ticker.set(50_000_000); // a read from before the eviction
    assertThat(limiter.tryAcquire("a")).isTrue();
    ticker.set(130_000_000);

    Decision decision = limiter.decide("a", 1);
    assertThat(decision.allowed()).isFalse();
    assertThat(decision.resetAfter())
        .as("the grant was recorded at 120 ms, not at 50 ms")
        .isEqualTo(Duration.ofMillis(90));
  }

  @Test
  void builder_invalidArguments_areRejectedNamingTheParameter() {
    assertThatThrownBy(() -> KeyedRateLimiter.builder().maxKeys(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxKeys")
        .hasMessageContaining("was 0");
    assertThatThrownBy(() -> KeyedRateLimiter.builder().maxKeys(1L << 32))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxKeys");
    assertThatThrownBy(() -> KeyedRateLimiter.builder().maxKeysPerGroup(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("maxKeysPerGroup")
        .hasMessageContaining("was 0");
    assertThatThrownBy(() -> KeyedRateLimiter.builder().maxKeysPerGroup(2).maxKeysPerGroup(3))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("maxKeysPerGroup");
    assertThatThrownBy(() -> KeyedRateLimiter.builder().onKeyOverflow(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("overflow must not be null");
    assertThatThrownBy(() -> KeyedRateLimiter.builder().build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("limits");
  }

  /**
   * Eight threads over 64 keys, in rounds with the clock frozen inside a round. Between rounds
   * every window often empties, so keys are evicted and re-created while other threads use them.
   * Each key's grants per round must equal exactly what an exact log leaves available: more would
   * break the guarantee, fewer would mean a grant recorded in an evicted entry (a lost update).
   */
  @Test
  void eightThreadsOverManyKeysWithEvictions_grantExactlyWhatEachKeyHasLeft() throws Exception {
    int keys = 64;
    int threads = 8;
    int attemptsPerThread = 200;
    int rounds = 40;
    long window = 100;
    long permits = 3;
    ManualTicker ticker = new ManualTicker(Long.MIN_VALUE + 3);
    LocalKeyedRateLimiter<String> limiter =
        limiter(ticker, Limit.exact(permits, Duration.ofNanos(window)), keys, KeyOverflow.REFUSE);
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    List<List<long[]>> grantsPerKey = new ArrayList<>();
    for (int k = 0; k < keys; k++) {
      grantsPerKey.add(new ArrayList<>());
    }
    int[][][] plan = new int[rounds][threads][attemptsPerThread];
    for (int[][] round : plan) {
      for (int[] thread : round) {
        for (int a = 0; a < thread.length; a++) {
          thread[a] = random.nextInt(keys);
        }
      }
    }
    AtomicLongArray granted = new AtomicLongArray(keys);
    CyclicBarrier start = new CyclicBarrier(threads + 1);
    CyclicBarrier end = new CyclicBarrier(threads + 1);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        workers.add(
            pool.submit(
                () -> {
                  for (int r = 0; r < rounds; r++) {
                    start.await(10, TimeUnit.SECONDS);
                    for (int key : plan[r][thread]) {
                      if (limiter.tryAcquire("key-" + key)) {
                        granted.incrementAndGet(key);
                      }
                    }
                    end.await(10, TimeUnit.SECONDS);
                  }
                  return null;
                }));
      }
      long now = 0;
      for (int r = 0; r < rounds; r++) {
        long gap = random.nextBoolean() ? window : random.nextInt((int) window);
        ticker.advance(gap);
        now += gap;
        int[] attempts = new int[keys];
        for (int[] thread : plan[r]) {
          for (int key : thread) {
            attempts[key]++;
          }
        }
        for (int k = 0; k < keys; k++) {
          granted.set(k, 0);
        }
        start.await(10, TimeUnit.SECONDS);
        end.await(10, TimeUnit.SECONDS);
        for (int k = 0; k < keys; k++) {
          long inWindow = 0;
          for (long[] g : grantsPerKey.get(k)) {
            if (g[0] > now - window) {
              inWindow += g[1];
            }
          }
          long expected = Math.min(attempts[k], permits - inWindow);
          assertThat(granted.get(k))
              .as("key %d in round %d, seed %d", k, r, seed)
              .isEqualTo(expected);
          if (expected > 0) {
            grantsPerKey.get(k).add(new long[] {now, expected});
          }
        }
        if (r % 5 == 4) {
          limiter.cleanUp();
        }
      }
      for (Future<?> worker : workers) {
        worker.get(10, TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(limiter.trackedKeys()).isLessThanOrEqualTo(keys);
  }
}
