package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FailingLimiter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Idle ids cost nothing, for each client: up to a million distinct ids, each granted once through
 * the asynchronous API (requests sharing calls), leave one key each; every key found has an expiry
 * of at most the window plus one bucket and a quarter of that ({@link LimiterScript#expiryMillis}),
 * and soon after the last write no key is left. The ids are driven for at most {@link
 * #DRIVE_BUDGET}, so the test stays short on a slow or busy machine; it prints how many it drove,
 * the memory per live key and the time the keys took to go. On a redis-server of its own, so that
 * its key count and memory are this test's alone (a Lettuce connection of the test's own reads
 * them). Jedis blocks, so its ids are driven from several threads.
 */
class ExpiryIT {

  private static final int MAX_IDS = 1_000_000;

  /** Fewer ids than this in the budget would make the figures meaningless: the test fails. */
  private static final int MIN_IDS = 30_000;

  /** Per client: the two runs together take about as long as one did with 25 s. */
  private static final Duration DRIVE_BUDGET = Duration.ofSeconds(12);

  private static final Duration WINDOW = Duration.ofSeconds(5);

  private static final Duration PRECISION = Duration.ofMillis(50);

  /** How long active expiry may take, past the last key's expiry time, to reclaim every key. */
  private static final Duration RECLAIM_BOUND = Duration.ofSeconds(20);

  private static final int IN_FLIGHT = 2_048;

  private static final Pattern USED_MEMORY = Pattern.compile("used_memory:(\\d+)");

  private static OwnRedis redis;
  private static RedisClient inspector;
  private static StatefulRedisConnection<String, String> connection;

  @BeforeAll
  static void start() {
    redis = new OwnRedis();
    inspector = RedisClient.create(redis.server.uri());
    connection = inspector.connect();
  }

  @AfterAll
  static void stop() {
    try {
      if (inspector != null) {
        inspector.shutdown();
      }
    } finally {
      if (redis != null) {
        redis.close();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void manyDistinctIds_everyKeyExpiresWithinWindowPlusBucket_andAllAreGone(Client client)
      throws Exception {
    RedisAsyncCommands<String, String> redisCommands = connection.async();
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(redis.backend(client))
            .keyPrefix("expiry")
            .limit(Limit.of(10, WINDOW).withPrecision(PRECISION))
            .commandTimeout(Duration.ofSeconds(10))
            .fallback(new FailingLimiter())
            .build();
    long ttlBoundMillis = LimiterScript.expiryMillis(WINDOW.plus(PRECISION).toMillis());
    long usedBefore = usedMemory();
    await()
        .atMost(Duration.ofMillis(ttlBoundMillis).plus(RECLAIM_BOUND))
        .until(() -> connection.sync().dbsize() == 0); // the other client's keys are gone

    long start = System.nanoTime();
    long stopAt = start + DRIVE_BUDGET.toNanos();
    Semaphore slots = new Semaphore(IN_FLIGHT);
    AtomicLong granted = new AtomicLong();
    AtomicReference<Throwable> failure = new AtomicReference<>();
    AtomicInteger next = new AtomicInteger();
    AtomicInteger sent = new AtomicInteger();
    AtomicInteger highest = new AtomicInteger(-1);
    Runnable driver =
        () -> {
          int id;
          while (System.nanoTime() < stopAt && (id = next.getAndIncrement()) < MAX_IDS) {
            try {
              if (!slots.tryAcquire(30, TimeUnit.SECONDS)) {
                failure.compareAndSet(null, new AssertionError("no answer within 30 s"));
                return;
              }
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              return;
            }
            sent.incrementAndGet();
            highest.accumulateAndGet(id, Math::max);
            limiter
                .tryAcquireAsync("id-" + id, 1)
                .whenComplete(
                    (allowed, error) -> {
                      if (error != null) {
                        failure.compareAndSet(null, error);
                      } else if (allowed) {
                        granted.incrementAndGet();
                      }
                      slots.release();
                    });
          }
        };
    // A blocking client answers on the caller's thread: several callers keep several calls going.
    int drivers = client.blocks() ? 8 : 1;
    ExecutorService pool = Executors.newFixedThreadPool(drivers);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int d = 0; d < drivers; d++) {
        running.add(pool.submit(driver));
      }
      for (Future<?> r : running) {
        r.get(DRIVE_BUDGET.plusSeconds(60).toSeconds(), TimeUnit.SECONDS);
      }
    } finally {
      pool.shutdownNow();
    }
    int ids = sent.get();
    assertThat(slots.tryAcquire(IN_FLIGHT, 30, TimeUnit.SECONDS)).as("all answered").isTrue();
    long written = System.nanoTime();
    assertThat(failure.get()).isNull();
    assertThat(granted.get()).as("each id granted once").isEqualTo(ids);
    assertThat(ids).as("ids driven in %s", DRIVE_BUDGET).isGreaterThanOrEqualTo(MIN_IDS);

    // Keys of the ids driven in the last window are still there; older ones may be gone already.
    long liveKeys = connection.sync().dbsize();
    long usedAfter = usedMemory();
    assertThat(liveKeys).isPositive().isLessThanOrEqualTo(ids);
    String lastKey = limiter.keysOf("id-" + highest.get()).get(0);
    assertThat(connection.sync().exists(lastKey)).isEqualTo(1);
    Long lastKeyBytes = connection.sync().memoryUsage(lastKey);

    // Every key SCAN finds has an expiry of at most the window plus one bucket, plus a quarter.
    long scanned = 0;
    long longestPttl = 0;
    ScanCursor cursor = ScanCursor.INITIAL;
    ScanArgs args = ScanArgs.Builder.matches("expiry:*").limit(10_000);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    do {
      assertThat(System.nanoTime()).as("SCAN finished in time").isLessThan(deadline);
      KeyScanCursor<String> page = redisCommands.scan(cursor, args).get(10, TimeUnit.SECONDS);
      List<RedisFuture<Long>> ttls = new ArrayList<>(page.getKeys().size());
      for (String key : page.getKeys()) {
        ttls.add(redisCommands.pttl(key));
      }
      for (int k = 0; k < ttls.size(); k++) {
        long pttl = ttls.get(k).get(10, TimeUnit.SECONDS);
        // -2: expired between SCAN and PTTL, which is fine; -1 (no expiry) or too long is not.
        assertThat(pttl)
            .as("PTTL of %s", page.getKeys().get(k))
            .isNotEqualTo(-1)
            .isLessThanOrEqualTo(ttlBoundMillis);
        longestPttl = Math.max(longestPttl, pttl);
      }
      scanned += ttls.size();
      cursor = page;
    } while (!cursor.isFinished());
    assertThat(scanned).as("keys SCAN found").isPositive();

    // Every key expires: none is left once the last one's expiry has passed.
    await()
        .atMost(Duration.ofMillis(ttlBoundMillis).plus(RECLAIM_BOUND))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> connection.sync().dbsize() == 0);
    long gone = System.nanoTime();

    System.out.printf(
        "ExpiryIT ("
            + client
            + "): %d ids written in %d ms (%.0f ids/s); at the end %d live keys, used_memory"
            + " %d -> %d bytes, %.1f bytes per live key (MEMORY USAGE of one: %d); %d keys"
            + " scanned, longest PTTL %d ms"
            + " (bound %d ms); no key left %d ms after the last write%n",
        ids,
        TimeUnit.NANOSECONDS.toMillis(written - start),
        ids * 1e9 / (written - start),
        liveKeys,
        usedBefore,
        usedAfter,
        (usedAfter - usedBefore) / (double) liveKeys,
        lastKeyBytes,
        scanned,
        longestPttl,
        ttlBoundMillis,
        TimeUnit.NANOSECONDS.toMillis(gone - written));
  }

  private static long usedMemory() {
    Matcher m = USED_MEMORY.matcher(connection.sync().info("memory"));
    assertThat(m.find()).isTrue();
    return Long.parseLong(m.group(1));
  }
}
