package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.testkit.FailingLimiter;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Requests sharing script calls, for each client, on a server of its own so that the script calls
 * counted by {@code INFO commandstats} are this class's alone. With Jedis a call blocks its caller,
 * so requests queue only while other threads' calls are on their way: the scenarios that need a
 * queue send each request from a thread of its own, for both clients.
 */
class BatchingIT {

  private static OwnRedis redis;

  @BeforeAll
  static void start() {
    redis = new OwnRedis();
  }

  @AfterAll
  static void stop() {
    if (redis != null) {
      redis.close();
    }
  }

  private static long scriptCalls() {
    return redis.scriptCalls();
  }

  private static RedisRateLimiter.Builder limiter(Client client, String prefix, Limit limit) {
    return RedisRateLimiter.builder(redis.backend(client))
        .keyPrefix(prefix + "-" + client)
        .limit(limit)
        .clientTime(new FakeTicker());
  }

  /**
   * The longest a test holds Redis still while its requests queue; it lets go as soon as they have
   * (this bounds a test that fails before it does). Redis is held with {@code CLIENT PAUSE ...
   * WRITE}, which stops the script calls and lets {@code INFO} and {@code CLIENT UNPAUSE} through,
   * so that the calls waiting behind the first ones leave only once every request is queued,
   * however slowly a loaded machine starts the senders.
   */
  private static final Duration HOLD = Duration.ofSeconds(20);

  private static final Duration QUEUE_BOUND = Duration.ofSeconds(10);

  private static void hold() {
    redis.server.cli("CLIENT", "PAUSE", String.valueOf(HOLD.toMillis()), "WRITE");
  }

  private static void letGo() {
    redis.server.cli("CLIENT", "UNPAUSE");
  }

  /**
   * Waits until every thread but the senders of the first calls has handed its request over, so
   * that nothing is still on its way to the queue when Redis answers, and at least {@code requests}
   * wait in the queue, then lets Redis go. A thread that sends a call waits on it with a blocking
   * client (Jedis), so exactly {@link Batcher#MAX_IN_FLIGHT} threads are still busy there; with
   * Lettuce every thread is done.
   */
  private static void untilQueuedThenLetGo(
      Client client, RedisRateLimiter limiter, List<? extends Future<?>> handedOver, int requests) {
    int busy = client.blocks() ? Batcher.MAX_IN_FLIGHT : 0;
    await()
        .atMost(QUEUE_BOUND)
        .pollInterval(Duration.ofMillis(5))
        .until(
            () ->
                handedOver.stream().filter(Future::isDone).count() >= handedOver.size() - busy
                    && limiter.queuedRequests() >= requests);
    letGo();
  }

  /**
   * Holds Redis, sends each of {@code ids} from a thread of its own, lets Redis go once every
   * request but the first calls' has queued (at least {@code requests} of them), and returns the
   * answers by id.
   */
  private static <T> Map<String, T> sentWhileHeld(
      Client client,
      RedisRateLimiter limiter,
      List<String> ids,
      Function<String, CompletableFuture<T>> request,
      int requests)
      throws Exception {
    hold();
    try {
      return fromThreadsOfTheirOwn(
          ids, request, handedOver -> untilQueuedThenLetGo(client, limiter, handedOver, requests));
    } finally {
      letGo();
    }
  }

  /**
   * Sends each of {@code ids} from a thread of its own, all at once, and returns the answers by id;
   * {@code whileSent} gets the threads' hand-overs (done once a thread's request has been sent or
   * queued) once every thread has been let go, before the answers are collected: a test that holds
   * Redis still waits there until the requests have queued.
   */
  private static <T> Map<String, T> fromThreadsOfTheirOwn(
      List<String> ids,
      Function<String, CompletableFuture<T>> request,
      Consumer<List<Future<CompletableFuture<T>>>> whileSent)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(ids.size());
    CountDownLatch start = new CountDownLatch(1);
    try {
      Map<String, Future<CompletableFuture<T>>> sent = new HashMap<>();
      for (String id : ids) {
        sent.put(
            id,
            pool.submit(
                () -> {
                  start.await();
                  return request.apply(id);
                }));
      }
      start.countDown();
      whileSent.accept(List.copyOf(sent.values()));
      Map<String, T> answers = new HashMap<>();
      for (String id : ids) {
        answers.put(id, sent.get(id).get(30, TimeUnit.SECONDS).get(30, TimeUnit.SECONDS));
      }
      return answers;
    } finally {
      pool.shutdownNow();
    }
  }

  /**
   * Sixteen threads on one limiter with a clock that stands still: on a shared id exactly N are
   * granted, on each thread's own id exactly its N, and the requests took fewer script calls than
   * there were requests, so some calls carried several.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void sixteenThreads_sharedAndOwnIds_exactGrantsInFewerCalls(Client client) throws Exception {
    RedisRateLimiter limiter =
        limiter(client, "sixteen", Limit.of(200, Duration.ofSeconds(1)))
            .refusalCache(0)
            .commandTimeout(Client.GENEROUS)
            .fallback(new FailingLimiter())
            .build();
    int threads = 16;
    int callsPerThread = 300;
    AtomicLong sharedGrants = new AtomicLong();
    long[] ownGrants = new long[threads];
    long before = scriptCalls();
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    try {
      List<Future<?>> workers = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        int thread = t;
        workers.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < callsPerThread; i++) {
                    if (limiter.tryAcquire("shared", 1)) {
                      sharedGrants.incrementAndGet();
                    }
                    Decision own = limiter.decide("own-" + thread, 1);
                    if (own.allowed()) {
                      ownGrants[thread]++;
                    }
                  }
                  return null;
                }));
      }
      start.countDown();
      for (Future<?> worker : workers) {
        worker.get(2, TimeUnit.MINUTES);
      }
    } finally {
      pool.shutdownNow();
    }
    assertThat(sharedGrants.get()).isEqualTo(200);
    for (int t = 0; t < threads; t++) {
      assertThat(ownGrants[t]).as("thread %d's own id", t).isEqualTo(200);
    }
    long requests = 2L * threads * callsPerThread;
    assertThat(scriptCalls() - before)
        .as("script calls for %d requests", requests)
        .isLessThan(requests);
  }

  /**
   * With Redis paused, two calls are on their way and a third request waits in the queue; all three
   * time out. A call whose callers all gave up is dropped and frees its place on the way, so the
   * third, still waiting when the first call's caller gave up a moment before it, may be sent in
   * that place (and dropped by the client unsent if its own caller gave up first). Nothing runs
   * twice: once Redis has run what reached it, a fourth request finds the two permits of the calls
   * written before the pause, its own, and at most the third's. That a request whose caller gave up
   * before a place freed is never sent is the client-free batcher's rule ({@code BatcherTest}).
   * Lettuce only: a Jedis call that times out closes its connection and Redis drops it unrun;
   * {@code ScriptRulesIT} checks what Jedis does with a paused call.
   */
  @Test
  void lettuce_callsWhoseCallersGaveUp_freeTheirPlaces_andNothingRunsTwice() throws Exception {
    FakeTicker ticker = new FakeTicker();
    Limit limit = Limit.of(10, Duration.ofMinutes(1));
    RedisBackend backend = redis.backend(Client.LETTUCE);
    RedisRateLimiter limiter =
        RedisRateLimiter.builder(backend)
            .limit(limit)
            .clientTime(ticker)
            .commandTimeout(Duration.ofMillis(100))
            .circuitBreaker(100, Duration.ofSeconds(1))
            .failurePolicy(FailurePolicy.REFUSE)
            .build();
    RedisRateLimiter probe =
        RedisRateLimiter.builder(backend)
            .limit(limit)
            .clientTime(ticker)
            .batching(false)
            .refusalCache(0)
            .commandTimeout(Client.GENEROUS)
            .fallback(new FailingLimiter())
            .build();
    String id = "paused";
    assertThat(probe.tryAcquire("paused-warm-up", 1)).isTrue(); // the script is loaded from here on
    long before = scriptCalls();
    redis.server.cli("CLIENT", "PAUSE", "1000", "ALL");
    List<CompletableFuture<Boolean>> answers = new ArrayList<>();
    for (int i = 0; i < Batcher.MAX_IN_FLIGHT + 1; i++) {
      answers.add(limiter.tryAcquireAsync(id, 1).toCompletableFuture());
    }
    for (CompletableFuture<Boolean> answer : answers) {
      assertThat(answer.get(5, TimeUnit.SECONDS)).as("REFUSE while paused").isFalse();
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> scriptCalls() - before >= Batcher.MAX_IN_FLIGHT);
    assertThat(limiter.tryAcquireAsync(id, 1).toCompletableFuture().get(5, TimeUnit.SECONDS))
        .isTrue();
    Decision all = probe.decide(id, 10); // refused, so nothing recorded
    assertThat(all.allowed()).isFalse();
    assertThat(all.remaining())
        .as("the calls sent before the pause and the fourth, each once, and at most the third")
        .isBetween(10L - Batcher.MAX_IN_FLIGHT - 2, 10L - Batcher.MAX_IN_FLIGHT - 1);
  }

  /**
   * A key that holds something else (a string, a list in another layout) fails its own request
   * only: the other requests of the same call are decided, and that request gets the failure
   * policy's answer. Redis is paused while six threads send a request each: two calls leave at once
   * (each with one request, or a few that reached the queue together), and the rest queue and share
   * one call, or two with a blocking client, whose two senders drain the queue together.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void keyHoldingSomethingElse_failsItsRequestOnly(Client client) throws Exception {
    RedisRateLimiter limiter =
        limiter(client, "wrong-type", Limit.of(10, Duration.ofMinutes(1)))
            .commandTimeout(Client.GENEROUS)
            .failurePolicy(FailurePolicy.REFUSE)
            .build();
    redis.server.cli("SET", limiter.keysOf("string").get(0), "x");
    redis.server.cli("RPUSH", limiter.keysOf("old-layout").get(0), "17", "0", "0", "1");
    assertThat(limiter.tryAcquire("warm-up", 1)).isTrue(); // the script is loaded from here on
    long before = scriptCalls();
    List<String> ids = List.of("first", "second", "string", "good", "old-layout", "also-good");
    Map<String, Decision> answers =
        sentWhileHeld(
            client, limiter, ids, id -> limiter.decideAsync(id, 1).toCompletableFuture(), 1);
    for (String id : ids) {
      assertThat(answers.get(id).allowed())
          .as("id %s", id)
          .isEqualTo(!id.equals("string") && !id.equals("old-layout"));
    }
    // With a blocking client the two senders come back together when Redis resumes, and each
    // drains the queue on its own thread, so the rest may leave split between them.
    long rest = scriptCalls() - before - Batcher.MAX_IN_FLIGHT;
    if (client.blocks()) {
      assertThat(rest).as("the rest, in at most two calls").isBetween(1L, 2L);
    } else {
      assertThat(rest).as("two calls at once, then one for the rest").isEqualTo(1);
    }
    assertThat(redis.server.cli("GET", limiter.keysOf("string").get(0))).isEqualTo("x");
  }

  /**
   * A call carries at most {@link Batcher#MAX_REQUESTS} requests: with Redis paused, the first
   * calls leave at once and more than 64 requests queue behind them; those then leave in two calls,
   * the first of 64 (with a blocking client, in at least two: how its two senders share the queue
   * varies; {@code BatcherTest} checks the size of each call).
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void queuedRequests_leaveInCallsOfAtMostMaxRequests(Client client) throws Exception {
    RedisRateLimiter limiter =
        limiter(client, "max", Limit.of(10, Duration.ofMinutes(1)))
            .commandTimeout(Client.GENEROUS)
            .failurePolicy(FailurePolicy.REFUSE)
            .build();
    int queued = Batcher.MAX_REQUESTS + 6;
    assertThat(limiter.tryAcquire("max-warm-up", 1)).isTrue(); // the script is loaded from here on
    long before = scriptCalls();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < Batcher.MAX_IN_FLIGHT + queued; i++) {
      ids.add("max-" + i);
    }
    Map<String, Boolean> answers =
        sentWhileHeld(
            client,
            limiter,
            ids,
            id -> limiter.tryAcquireAsync(id, 1).toCompletableFuture(),
            Batcher.MAX_REQUESTS + 1);
    assertThat(answers.values()).hasSize(ids.size()).containsOnly(true);
    long rest = scriptCalls() - before - Batcher.MAX_IN_FLIGHT;
    if (client.blocks()) {
      // The two senders come back together and drain the queue at once, each sending what it
      // took and then taking more, so the queued requests may leave in more calls than the least.
      assertThat(rest).as("more queued than one call carries").isGreaterThanOrEqualTo(2);
    } else {
      assertThat(rest).as("one call of 64, then one for the rest").isEqualTo(2);
    }
  }
}
