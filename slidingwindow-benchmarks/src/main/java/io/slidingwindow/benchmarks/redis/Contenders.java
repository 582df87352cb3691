package io.slidingwindow.benchmarks.redis;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.distributed.serialization.Mapper;
import io.github.bucket4j.redis.jedis.Bucket4jJedis;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.redis.jedis.JedisBackends;
import io.slidingwindow.redis.lettuce.LettuceBackends;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPool;
import redis.clients.jedis.JedisPoolConfig;
import redis.clients.jedis.util.Pool;

/**
 * BENCHMARK HARNESS support: the Redis-backed contenders, each limiting requests per minute per id,
 * built fresh for every case on clients shared by all cases. Not thread-safe to build; a built
 * contender is called from many threads.
 */
final class Contenders implements AutoCloseable {

  static final Duration WINDOW = Duration.ofMinutes(1);
  static final String OURS = "slidingwindow RedisRateLimiter";
  static final String OURS_NO_CACHE = "slidingwindow, refusal cache off";
  static final String OURS_ASYNC = "slidingwindow decideAsync, 4 threads x 64 in flight";
  static final String BUCKET4J = "Bucket4j Lettuce proxy manager (CAS)";

  /**
   * This library's {@code RedisRateLimiter} over Jedis: every client thread blocks in {@code
   * tryAcquire}; requests that wait at the same moment share script calls, and the refusal cache is
   * on, as with Lettuce. Named by its module, so that {@code -Dcontenders=} can pick it alone (the
   * filter splits at commas, and the script's JAVA_OPTS at spaces).
   */
  static final String OURS_JEDIS = "slidingwindow-redis-jedis RedisRateLimiter";

  /**
   * Bucket4j's Jedis proxy manager (compare-and-swap) on a {@code JedisPool} of one connection per
   * client thread; named by its module too.
   */
  static final String BUCKET4J_JEDIS = "Bucket4j-Jedis proxy manager (CAS)";

  static final String REDISSON = "Redisson RRateLimiter";
  static final String SORTED_SET = "sorted-set log script";

  /**
   * Not a limiter: one Lettuce EVALSHA of {@code return 1} per call, with the id's key, on one
   * connection. The most calls per second that any design making one script call per request
   * through Lettuce can reach on this machine.
   */
  static final String LETTUCE_FLOOR = "Lettuce EVALSHA `return 1`";

  /** Not a limiter: {@code redis-benchmark} running EVALSHA of {@code return 1}, a C client. */
  static final String REDIS_BENCHMARK = "redis-benchmark EVALSHA `return 1`";

  /** Every contender, in the order of the tables. */
  static final List<String> NAMES =
      List.of(
          OURS,
          OURS_ASYNC,
          OURS_NO_CACHE,
          OURS_JEDIS,
          BUCKET4J,
          BUCKET4J_JEDIS,
          REDISSON,
          SORTED_SET,
          LETTUCE_FLOOR,
          REDIS_BENCHMARK);

  static final int ASYNC_THREADS = 4;
  static final int ASYNC_IN_FLIGHT_PER_THREAD = 64;

  /** The Jedis clients' connect and socket timeout, and the limiters' command timeout. */
  static final Duration TIMEOUT = Duration.ofSeconds(1);

  /** The common sorted-set log, one limit, with PEXPIRE added so idle keys leave. */
  static final String SORTED_SET_SCRIPT =
"""
-- KEYS[1] the log; ARGV[1] window ms, ARGV[2] threshold, ARGV[3] now ms, ARGV[4] a unique member
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[1]))
local count = redis.call('ZCARD', KEYS[1])
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
if count < tonumber(ARGV[2]) then return 1 end
return 0
""";

  /** One contender in one case: what it sets up in Redis, and its load. */
  interface Contender {
    default void prepare(List<String> ids) {}

    Load.Count run(List<String> ids, int seconds) throws Exception;
  }

  private final int port;
  private final int threads;
  private final RedisBackend backend;
  private final RedisClient bucket4jClient;
  private final StatefulRedisConnection<String, byte[]> bucket4jConnection;
  private final ProxyManager<String> bucket4j;
  private final RedisBackend jedisBackend;
  private final Pool<Jedis> bucket4jJedisPool;
  private final ProxyManager<String> bucket4jJedis;
  private final RedissonClient redisson;
  private final RedisClient scriptClient;
  private final StatefulRedisConnection<String, String> scriptConnection;
  private final AtomicLong members = new AtomicLong();
  private String sortedSetSha;
  private String returnOneSha;

  Contenders(String uri, int port, int threads) {
    this.port = port;
    this.threads = threads;
    this.backend = LettuceBackends.standalone(uri);
    this.bucket4jClient = RedisClient.create(uri);
    this.bucket4jConnection =
        bucket4jClient.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
    this.bucket4j =
        Bucket4jLettuce.casBasedBuilder(bucket4jConnection)
            .expirationAfterWrite(
                ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                    Duration.ofSeconds(10)))
            .build();
    this.jedisBackend = JedisBackends.standalone(uri, TIMEOUT);
    this.bucket4jJedisPool = jedisPool(uri, threads);
    this.bucket4jJedis =
        Bucket4jJedis.casBasedBuilder(bucket4jJedisPool)
            .keyMapper(Mapper.STRING)
            .expirationAfterWrite(
                ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                    Duration.ofSeconds(10)))
            .build();
    Config redissonConfig = new Config();
    redissonConfig
        .useSingleServer()
        .setAddress(uri)
        .setConnectionPoolSize(threads * 2)
        .setConnectionMinimumIdleSize(threads);
    this.redisson = Redisson.create(redissonConfig);
    this.scriptClient = RedisClient.create(uri);
    this.scriptConnection = scriptClient.connect();
  }

  RedisBackend backend() {
    return backend;
  }

  /** Loads the scripts of the sorted-set log and the floors; FLUSHALL keeps loaded scripts. */
  void loadScripts() {
    sortedSetSha = scriptConnection.sync().scriptLoad(SORTED_SET_SCRIPT);
    returnOneSha = scriptConnection.sync().scriptLoad("return 1");
  }

  String sortedSetSha() {
    return sortedSetSha;
  }

  /** A new contender {@code name} allowing {@code permits} per minute per id. */
  Contender create(String name, long permits) {
    switch (name) {
      case OURS, OURS_NO_CACHE, OURS_JEDIS -> {
        RedisBackend on = name.equals(OURS_JEDIS) ? jedisBackend : backend;
        RedisRateLimiter ours = ours(on, permits, !name.equals(OURS_NO_CACHE));
        return (ids, seconds) -> Load.blocking(id -> ours.tryAcquire(id, 1), ids, threads, seconds);
      }
      case OURS_ASYNC -> {
        RedisRateLimiter ours = ours(backend, permits, true);
        return (ids, seconds) ->
            Load.async(
                id -> ours.decideAsync(id, 1).thenApply(d -> d.allowed()),
                ids,
                ASYNC_THREADS,
                ASYNC_IN_FLIGHT_PER_THREAD,
                seconds);
      }
      case BUCKET4J, BUCKET4J_JEDIS -> {
        BucketConfiguration configuration =
            BucketConfiguration.builder()
                .addLimit(limit -> limit.capacity(permits).refillGreedy(permits, WINDOW))
                .build();
        ProxyManager<String> proxies = name.equals(BUCKET4J) ? bucket4j : bucket4jJedis;
        return (ids, seconds) ->
            Load.blocking(
                id -> proxies.builder().build(id, () -> configuration).tryConsume(1),
                ids,
                threads,
                seconds);
      }
      case REDISSON -> {
        Map<String, RRateLimiter> limiters = new ConcurrentHashMap<>();
        return new Contender() {
          @Override
          public void prepare(List<String> ids) {
            for (String id : ids) {
              RRateLimiter limiter = redisson.getRateLimiter("rrl:" + id);
              limiter.trySetRate(RateType.OVERALL, permits, WINDOW);
              limiters.put(id, limiter);
            }
          }

          @Override
          public Load.Count run(List<String> ids, int seconds) throws InterruptedException {
            return Load.blocking(id -> limiters.get(id).tryAcquire(), ids, threads, seconds);
          }
        };
      }
      case SORTED_SET -> {
        return (ids, seconds) -> Load.blocking(id -> sortedSet(id, permits), ids, threads, seconds);
      }
      case LETTUCE_FLOOR -> {
        return (ids, seconds) ->
            Load.blocking(
                id -> {
                  scriptConnection
                      .sync()
                      .evalsha(
                          returnOneSha,
                          ScriptOutputType.INTEGER,
                          new String[] {"floor:{" + id + "}"});
                  return true;
                },
                ids,
                threads,
                seconds);
      }
      case REDIS_BENCHMARK -> {
        return (ids, seconds) -> Load.redisBenchmark(port, threads, returnOneSha, seconds);
      }
      default -> throw new IllegalArgumentException("unknown contender: " + name);
    }
  }

  /** A short axis label for {@code contender}. */
  static String shortName(String contender) {
    return switch (contender) {
      case Contenders.OURS -> "ours (blocking)";
      case Contenders.OURS_ASYNC -> "ours (decideAsync)";
      case Contenders.OURS_NO_CACHE -> "ours, cache off";
      case Contenders.OURS_JEDIS -> "ours (Jedis)";
      case Contenders.BUCKET4J -> "Bucket4j (CAS)";
      case Contenders.BUCKET4J_JEDIS -> "Bucket4j (Jedis)";
      case Contenders.REDISSON -> "Redisson";
      case Contenders.SORTED_SET -> "sorted-set log";
      case Contenders.LETTUCE_FLOOR -> "Lettuce floor";
      case Contenders.REDIS_BENCHMARK -> "redis-benchmark";
      default -> contender;
    };
  }

  private static RedisRateLimiter ours(RedisBackend on, long permits, boolean refusalCache) {
    RedisRateLimiter.Builder builder =
        RedisRateLimiter.builder(on)
            .limit(Limit.of(permits, WINDOW))
            .commandTimeout(TIMEOUT)
            .failurePolicy(FailurePolicy.REFUSE);
    if (!refusalCache) {
      builder.refusalCache(0);
    }
    return builder.build();
  }

  /**
   * A pool of at most {@code threads} Jedis connections (all kept idle, so none is opened or closed
   * during a case) with {@link #TIMEOUT} to connect and to read. Jedis 8 deprecates {@code
   * JedisPool} for its {@code RedisClient}, but Bucket4j 8.14's Jedis integration documents the
   * pool, so the peer runs as its users build it.
   */
  @SuppressWarnings("deprecation")
  private static Pool<Jedis> jedisPool(String uri, int threads) {
    JedisPoolConfig config = new JedisPoolConfig();
    config.setMaxTotal(threads);
    config.setMaxIdle(threads);
    config.setMinIdle(threads);
    int millis = (int) TIMEOUT.toMillis();
    return new JedisPool(config, URI.create(uri), millis, millis);
  }

  private boolean sortedSet(String id, long permits) {
    Long granted =
        scriptConnection
            .sync()
            .evalsha(
                sortedSetSha,
                ScriptOutputType.INTEGER,
                new String[] {"zset:{" + id + "}"},
                Long.toString(WINDOW.toMillis()),
                Long.toString(permits),
                Long.toString(System.currentTimeMillis()),
                Long.toString(members.incrementAndGet()));
    return granted == 1L;
  }

  @Override
  public void close() {
    redisson.shutdown();
    scriptConnection.close();
    scriptClient.shutdown();
    bucket4jConnection.close();
    bucket4jClient.shutdown();
    bucket4jJedisPool.close();
    jedisBackend.close();
    backend.close();
  }
}
