package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Decision;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.testkit.FailingLimiter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Every key a client can choose, on the shared server for each client: ids of any length and
 * content (long, braces, CR LF, NUL, lone surrogates, the digest prefix spelled out) each get their
 * own window and sum, answered by Redis, never by the failure policy; a null id or a bad weight is
 * the caller's fault, thrown at once on every path and never handed to the policy.
 */
class KeysIT {

  /** Three ids a charset encoder cannot tell apart. */
  private static final List<String> LOOK_ALIKES = List.of("ka\uD800", "ka\uDC00", "ka\uDBFF");

  private static final AtomicInteger PREFIXES = new AtomicInteger();

  /** Ids that an encoding, a length check or a hash tag could get wrong. */
  private static List<String> awkwardIds() {
    String longId = "k".repeat(1_100);
    return List.of(
        "",
        "{",
        "}",
        "{}",
        "\r\n",
        "\0",
        "\uD800",
        "?",
        "x".repeat(LimiterKeys.MAX_CHARS),
        "x".repeat(LimiterKeys.MAX_CHARS + 1),
        longId,
        longId + "!",
        "é".repeat(100_000),
        LimiterKeys.DIGEST_PREFIX + "spelled",
        LimiterKeys.bounded(longId));
  }

  private static RedisRateLimiter.Builder limiter(Client client, Limit limit) {
    return RedisRateLimiter.builder(SharedRedis.backend(client))
        .keyPrefix("keys-" + PREFIXES.incrementAndGet())
        .limit(limit)
        .commandTimeout(Client.GENEROUS)
        .fallback(new FailingLimiter())
        .refusalCache(0);
  }

  @Test
  void lookAlikeIds_encodedByACharset_wouldShareBytes() {
    byte[] first = LOOK_ALIKES.get(0).getBytes(StandardCharsets.UTF_16BE);
    for (String id : LOOK_ALIKES) {
      assertThat(id.getBytes(StandardCharsets.UTF_16BE)).isEqualTo(first);
      assertThat(new String(id.getBytes(StandardCharsets.UTF_8), StandardCharsets.UTF_8))
          .isEqualTo("ka?");
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void awkwardAndLongIds_eachGetTheirOwnWindowFromRedis(Client client) throws Exception {
    RedisRateLimiter limiter = limiter(client, Limit.of(1, Duration.ofMinutes(1))).build();
    List<String> ids = awkwardIds();
    for (int i = 0; i < ids.size(); i++) {
      String id = ids.get(i);
      boolean allowed =
          i % 2 == 0
              ? limiter.tryAcquire(id, 1)
              : limiter.decideAsync(id, 1).toCompletableFuture().get().allowed();
      assertThat(allowed).as("first call of id #%d, length %d", i, id.length()).isTrue();
    }
    for (int i = 0; i < ids.size(); i++) {
      assertThat(limiter.decide(ids.get(i), 1).allowed())
          .as("second call of id #%d, length %d", i, ids.get(i).length())
          .isFalse();
    }
    Set<String> keys = new HashSet<>();
    for (String id : ids) {
      String key = limiter.keysOf(id).get(0);
      assertThat(key.getBytes(StandardCharsets.UTF_8).length)
          .as("key of an id of length %d", id.length())
          .isLessThan(1_100);
      keys.add(key);
    }
    assertThat(keys).as("one key per id").hasSize(ids.size());
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void lookAlikeIds_haveOneWindowEach(Client client) {
    RedisRateLimiter limiter = limiter(client, Limit.of(1, Duration.ofMinutes(1))).build();
    String prefix =
        limiter.keysOf("x").get(0).substring(0, limiter.keysOf("x").get(0).indexOf(':'));
    assertThat(limiter.tryAcquire("ka?", 1)).isTrue();
    for (String id : LOOK_ALIKES) {
      assertThat(limiter.tryAcquire(id, 1)).as("the first permit of its own window").isTrue();
      assertThat(limiter.tryAcquire(id, 1)).as("its window is full").isFalse();
    }
    assertThat(SharedRedis.server().cli("KEYS", prefix + ":*").lines().count())
        .as("one key per id")
        .isEqualTo(LOOK_ALIKES.size() + 1);
    for (String id : LOOK_ALIKES) {
      assertThat(SharedRedis.server().cli("EXISTS", limiter.keysOf(id).get(0))).isEqualTo("1");
    }
  }

  @ParameterizedTest
  @EnumSource(Client.class)
  void counters_lookAlikeAndLongIds_keepSeparateSums(Client client) {
    RedisCounters counters =
        RedisCounters.builder(SharedRedis.backend(client))
            .keyPrefix("keys-counters-" + client)
            .size(10)
            .interval(Duration.ofSeconds(6))
            .commandTimeout(Client.GENEROUS)
            .build();
    List<String> ids = new ArrayList<>(LOOK_ALIKES);
    ids.add("c".repeat(1_100));
    ids.add("c".repeat(1_100) + "?");
    for (int i = 0; i < ids.size(); i++) {
      assertThat(counters.addAndGet(ids.get(i), 10L * (i + 1))).isEqualTo(10L * (i + 1));
    }
    for (int i = 0; i < ids.size(); i++) {
      assertThat(counters.sum(ids.get(i))).isEqualTo(10L * (i + 1));
      assertThat(counters.count(ids.get(i))).isEqualTo(1);
    }
    assertThat(counters.sum("ka?")).isZero();
    assertThatThrownBy(() -> counters.addAndGet(null, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key");
  }

  /** A fallback that counts what it is asked, granting everything. */
  private static final class Counting implements KeyedRateLimiter<String> {
    final List<String> asked = Collections.synchronizedList(new ArrayList<>());

    @Override
    public boolean tryAcquire(String key, long permits) {
      return decide(key, permits).allowed();
    }

    @Override
    public Decision decide(String key, long permits) {
      asked.add(key);
      return Decision.granted(0, Duration.ZERO, Limit.of(1, Duration.ofSeconds(1)));
    }

    @Override
    public List<Limit> limits() {
      return List.of();
    }
  }

  /**
   * A null id or a weight that is not positive or exceeds the limit is thrown at once, from the
   * blocking and the asynchronous methods alike, under every policy: Redis sees nothing, the
   * fallback is never asked, and a policy that grants never grants it.
   */
  @ParameterizedTest
  @EnumSource(Client.class)
  void nullIdsAndBadWeights_thrownAtOnceOnEveryPath_neverReachThePolicy(Client client) {
    for (FailurePolicy policy : FailurePolicy.values()) {
      Counting fallback = new Counting();
      RedisRateLimiter.Builder builder =
          RedisRateLimiter.builder(SharedRedis.backend(client))
              .keyPrefix("bad-args-" + PREFIXES.incrementAndGet())
              .limit(Limit.of(5, Duration.ofMinutes(1)))
              .commandTimeout(Client.GENEROUS)
              .circuitBreaker(1, Duration.ofHours(1))
              .failurePolicy(policy);
      if (policy == FailurePolicy.LOCAL) {
        builder.fallback(fallback);
      }
      RedisRateLimiter limiter = builder.build();
      List<Runnable> calls =
          List.of(
              () -> limiter.tryAcquire(null, 1),
              () -> limiter.decide(null, 1),
              () -> limiter.tryAcquireAsync(null, 1),
              () -> limiter.decideAsync(null, 1),
              () -> limiter.tryAcquire("id", 0),
              () -> limiter.decide("id", 6),
              () -> limiter.tryAcquireAsync("id", -1),
              () -> limiter.decideAsync("k".repeat(2_000), 6));
      for (int i = 0; i < calls.size(); i++) {
        Runnable call = calls.get(i);
        assertThatThrownBy(call::run)
            .as("call %d under %s", i, policy)
            .isInstanceOf(IllegalArgumentException.class);
      }
      assertThat(fallback.asked).as("keys the fallback was asked").isEmpty();
      assertThat(limiter.isBreakerOpen()).as("no failure of Redis was counted").isFalse();
      assertThat(limiter.decide("k".repeat(2_000), 5).remaining())
          .as("a long id still works, from Redis")
          .isZero();
    }
  }

  /** Any string, of any length, is a working id on each client: its limit holds exactly. */
  @Property(tries = 60)
  void anyId_getsExactlyItsLimitFromRedis(@ForAll("ids") String id, @ForAll Client client)
      throws Exception {
    RedisRateLimiter limiter = limiter(client, Limit.of(3, Duration.ofMinutes(1))).build();
    int granted = 0;
    for (int i = 0; i < 5; i++) {
      granted +=
          (i % 2 == 0
                  ? limiter.tryAcquire(id, 1)
                  : limiter.tryAcquireAsync(id, 1).toCompletableFuture().get())
              ? 1
              : 0;
    }
    assertThat(granted).isEqualTo(3);
  }

  @Provide
  Arbitrary<String> ids() {
    return Arbitraries.oneOf(
        Arbitraries.strings()
            .withChars('\uD800', '\uDC00', '{', '}', '\0', '\r', '\n', 'a', 'é', ':')
            .withCharRange('\u4E00', '\u4E10')
            .ofMaxLength(40),
        Arbitraries.strings().withCharRange('a', 'z').ofMinLength(250).ofMaxLength(3_000));
  }
}
