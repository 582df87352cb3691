package io.slidingwindow.benchmarks.redis;

import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.redis.FailurePolicy;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.redisson.Redisson;
import org.redisson.api.RRateLimiter;
import org.redisson.api.RateType;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * BENCHMARK HARNESS, not a test and not JMH: Redis-backed limiters side by side on one
 * redis-server, with a fixed number of client threads and a fixed duration per case.
 *
 * <p>Contenders, each limiting requests per minute per id: this library's {@link
 * RedisRateLimiter} (one EVALSHA per call, server time), Bucket4j's Lettuce proxy manager
 * (compare-and-swap), Redisson's {@code RRateLimiter}, and the common sorted-set script (a log of
 * every request). Three workloads: distinct ids (each thread walks a pool of 10 000 ids), one hot
 * id shared by every thread that is soon refused, and one hot id with a limit so high that every
 * call is granted (so every call writes, and compare-and-swap contends). Then {@code redis-benchmark} running EVALSHA of a one-line script at
 * the same concurrency, the server's cost per call from {@code INFO commandstats}, and {@code
 * MEMORY USAGE} of one key for 1000 per minute and for an exact 10 000 per 10 s, beside the
 * sorted-set log of the same requests.
 *
 * <p>It FLUSHES the target Redis: run it only against a scratch redis-server of your own on
 * 127.0.0.1. Usage: {@code java -cp slidingwindow-benchmarks/target/benchmarks.jar
 * io.slidingwindow.benchmarks.redis.RedisComparison redis://127.0.0.1:6399 [secondsPerCase=10]
 * [threads=16]} ({@code -DmemoryOnly=true} for the memory table alone; {@code
 * -Dcontenders=slidingwindow,Bucket4j} and {@code -Dworkloads=distinct} run only the contenders
 * whose names start so and the workloads so named). Prints Markdown tables.
 */
public final class RedisComparison {

  private static final int ID_POOL = 10_000;
  private static final long PERMITS = 1000;
  private static final Duration WINDOW = Duration.ofMinutes(1);
  private static final int WARMUP_SECONDS = 3;
  private static final String OURS = "slidingwindow RedisRateLimiter";
  private static final String OURS_NO_CACHE = "slidingwindow, refusal cache off";

  /**
   * Not a limiter: one Lettuce EVALSHA of {@code return 1} per call, with the id's key, on one
   * connection. The most calls per second that any design making one script call per request
   * through Lettuce can reach on this machine.
   */
  private static final String LETTUCE_FLOOR = "Lettuce EVALSHA `return 1`";

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

  private interface Contender {
    boolean tryAcquire(String id);

    default void prepare(List<String> ids) {}
  }

  private RedisComparison() {}

  public static void main(String[] args) throws Exception {
    String uri = args.length > 0 ? args[0] : "redis://127.0.0.1:6399";
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int threads = args.length > 2 ? Integer.parseInt(args[2]) : 16;
    if (!uri.startsWith("redis://127.0.0.1:")) {
      throw new IllegalArgumentException("uri must be a scratch redis-server on 127.0.0.1, was " + uri);
    }

    RedisClient adminClient = RedisClient.create(uri);
    StatefulRedisConnection<String, String> adminConnection = adminClient.connect();
    RedisCommands<String, String> admin = adminConnection.sync();

    RedisBackend backend = RedisBackend.standalone(uri);

    RedisClient bucket4jClient = RedisClient.create(uri);
    StatefulRedisConnection<String, byte[]> bucket4jConnection =
        bucket4jClient.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
    ProxyManager<String> bucket4j =
        Bucket4jLettuce.casBasedBuilder(bucket4jConnection)
            .expirationAfterWrite(
                ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(Duration.ofSeconds(10)))
            .build();

    Config redissonConfig = new Config();
    redissonConfig
        .useSingleServer()
        .setAddress(uri)
        .setConnectionPoolSize(threads * 2)
        .setConnectionMinimumIdleSize(threads);
    RedissonClient redisson = Redisson.create(redissonConfig);

    RedisClient sortedSetClient = RedisClient.create(uri);
    StatefulRedisConnection<String, String> sortedSetConnection = sortedSetClient.connect();
    String sortedSetSha = sortedSetConnection.sync().scriptLoad(SORTED_SET_SCRIPT);
    String returnOneSha = sortedSetConnection.sync().scriptLoad("return 1");
    AtomicLong members = new AtomicLong();

    List<String> names =
        List.of(
            OURS,
            OURS_NO_CACHE,
            "Bucket4j Lettuce proxy manager (CAS)",
            "Redisson RRateLimiter",
            "sorted-set log script",
            LETTUCE_FLOOR);
    java.util.function.BiFunction<String, Long, Contender> contenders =
        (name, permits) -> {
          switch (name) {
            case OURS -> {
              RedisRateLimiter ours =
                  RedisRateLimiter.builder(backend)
                      .limit(Limit.of(permits, WINDOW))
                      .commandTimeout(Duration.ofSeconds(1))
                      .failurePolicy(FailurePolicy.failClosed())
                      .build();
              return id -> ours.tryAcquire(id, 1);
            }
            case OURS_NO_CACHE -> {
              RedisRateLimiter ours =
                  RedisRateLimiter.builder(backend)
                      .limit(Limit.of(permits, WINDOW))
                      .commandTimeout(Duration.ofSeconds(1))
                      .failurePolicy(FailurePolicy.failClosed())
                      .refusalCache(0)
                      .build();
              return id -> ours.tryAcquire(id, 1);
            }
            case "Bucket4j Lettuce proxy manager (CAS)" -> {
              BucketConfiguration configuration =
                  BucketConfiguration.builder()
                      .addLimit(limit -> limit.capacity(permits).refillGreedy(permits, WINDOW))
                      .build();
              return id -> bucket4j.builder().build(id, () -> configuration).tryConsume(1);
            }
            case "Redisson RRateLimiter" -> {
              Map<String, RRateLimiter> limiters = new java.util.concurrent.ConcurrentHashMap<>();
              return new Contender() {
                @Override
                public boolean tryAcquire(String id) {
                  return limiters.get(id).tryAcquire();
                }

                @Override
                public void prepare(List<String> ids) {
                  for (String id : ids) {
                    RRateLimiter limiter = redisson.getRateLimiter("rrl:" + id);
                    limiter.trySetRate(RateType.OVERALL, permits, WINDOW);
                    limiters.put(id, limiter);
                  }
                }
              };
            }
            case LETTUCE_FLOOR -> {
              return id -> {
                sortedSetConnection.sync().evalsha(returnOneSha, ScriptOutputType.INTEGER, new String[] {"floor:{" + id + "}"});
                return true;
              };
            }
            default -> {
              return id -> {
                Long granted =
                    sortedSetConnection
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
              };
            }
          }
        };

    if (System.getProperty("contenders") == null && System.getProperty("workloads") == null) {
      memory(admin, backend, sortedSetConnection.sync(), sortedSetSha);
    }
    if (Boolean.getBoolean("memoryOnly")) {
      redisson.shutdown();
      System.exit(0);
    }

    List<String> distinct = new ArrayList<>();
    for (int i = 0; i < ID_POOL; i++) {
      distinct.add("user-" + i);
    }
    record Workload(String name, List<String> ids, long permits) {}
    List<Workload> workloads =
        List.of(
            new Workload("distinct", distinct, PERMITS),
            new Workload("hot, refusing", List.of("hot"), PERMITS),
            new Workload("hot, granting", List.of("hot"), 1_000_000_000L));

    System.out.printf(
        Locale.ROOT,
        "%n## Throughput, %d client threads, %d s per case after %d s warm-up%n%n",
        threads,
        seconds,
        WARMUP_SECONDS);
    System.out.println("| contender | ids, limit per minute | calls/s | granted | server µs per call | top-level commands per call |");
    System.out.println("|---|---|---:|---:|---:|---|");
    Map<String, Double> throughput = new LinkedHashMap<>();
    String onlyContenders = System.getProperty("contenders", "");
    String onlyWorkloads = System.getProperty("workloads", "");
    for (Workload workload : workloads) {
      if (!onlyWorkloads.isEmpty() && !List.of(onlyWorkloads.split(",")).contains(workload.name())) {
        continue;
      }
      for (String name : names) {
        if (!onlyContenders.isEmpty() && List.of(onlyContenders.split(",")).stream().noneMatch(name::startsWith)) {
          continue;
        }
        admin.flushall();
        Contender contender = contenders.apply(name, workload.permits());
        contender.prepare(workload.ids());
        run(contender, workload.ids(), threads, WARMUP_SECONDS);
        admin.configResetstat();
        long[] result = run(contender, workload.ids(), threads, seconds);
        double perSecond = result[0] / (double) seconds;
        Map<String, long[]> stats = commandStats(admin.info("commandstats"));
        long usec = 0;
        StringBuilder commands = new StringBuilder();
        for (Map.Entry<String, long[]> stat : stats.entrySet()) {
          String command = stat.getKey();
          if (command.equals("eval") || command.equals("evalsha") || command.equals("get") || command.equals("set")) {
            usec += stat.getValue()[1];
            commands.append(String.format(Locale.ROOT, "%s %.2f ", command, stat.getValue()[0] / (double) result[0]));
          }
        }
        throughput.put(name + "/" + workload.name(), perSecond);
        System.out.printf(
            Locale.ROOT,
            "| %s | %s, %d | %.0f | %.1f%% | %.1f | %s|%n",
            name,
            workload.name(),
            workload.permits(),
            perSecond,
            100.0 * result[1] / result[0],
            usec / (double) result[0],
            commands);
      }
    }

    admin.flushall();
    String oneLine = admin.scriptLoad("return 1");
    double redisBenchmark = redisBenchmark(uri, threads, oneLine, seconds);
    System.out.printf(
        Locale.ROOT,
        "%n## redis-benchmark -c %d EVALSHA %s 0 (one-line script `return 1`): %.0f requests/s%n",
        threads,
        oneLine,
        redisBenchmark);

    System.out.printf("%n## Ratios%n%n");
    for (Workload workload : workloads) {
      Double base = throughput.get(OURS + "/" + workload.name());
      if (base == null) {
        continue;
      }
      for (String name : names) {
        if (!name.equals(OURS) && throughput.containsKey(name + "/" + workload.name())) {
          System.out.printf(
              Locale.ROOT, "- %s: ours / %s = %.2f%n", workload.name(), name, base / throughput.get(name + "/" + workload.name()));
        }
      }
      System.out.printf(
          Locale.ROOT, "- %s: ours / redis-benchmark EVALSHA = %.2f%n", workload.name(), base / redisBenchmark);
    }

    redisson.shutdown();
    sortedSetConnection.close();
    sortedSetClient.shutdown();
    bucket4jConnection.close();
    bucket4jClient.shutdown();
    backend.close();
    adminConnection.close();
    adminClient.shutdown();
  }

  /** Runs {@code threads} threads calling the contender for {@code seconds}; returns {calls, granted}. */
  private static long[] run(Contender contender, List<String> ids, int threads, int seconds) throws Exception {
    LongAdder calls = new LongAdder();
    LongAdder granted = new LongAdder();
    AtomicBoolean stop = new AtomicBoolean();
    CountDownLatch done = new CountDownLatch(threads);
    List<Thread> workers = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      int offset = t * (ids.size() / threads + 1);
      Thread worker =
          new Thread(
              () -> {
                try {
                  for (int i = offset; !stop.get(); i++) {
                    if (contender.tryAcquire(ids.get(i % ids.size()))) {
                      granted.increment();
                    }
                    calls.increment();
                  }
                } finally {
                  done.countDown();
                }
              });
      worker.setDaemon(true);
      workers.add(worker);
    }
    workers.forEach(Thread::start);
    TimeUnit.SECONDS.sleep(seconds);
    stop.set(true);
    if (!done.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("workers did not stop");
    }
    return new long[] {calls.sum(), granted.sum()};
  }

  /** Parses {@code cmdstat_<name>:calls=..,usec=..} lines into name → {calls, usec}. */
  static Map<String, long[]> commandStats(String info) {
    Map<String, long[]> stats = new LinkedHashMap<>();
    for (String line : info.split("\r?\n")) {
      if (!line.startsWith("cmdstat_")) {
        continue;
      }
      String name = line.substring("cmdstat_".length(), line.indexOf(':'));
      long calls = 0;
      long usec = 0;
      for (String field : line.substring(line.indexOf(':') + 1).split(",")) {
        String[] kv = field.split("=");
        if (kv[0].equals("calls")) {
          calls = Long.parseLong(kv[1]);
        } else if (kv[0].equals("usec")) {
          usec = Long.parseLong(kv[1]);
        }
      }
      stats.put(name, new long[] {calls, usec});
    }
    return stats;
  }

  private static double redisBenchmark(String uri, int threads, String sha, int seconds) throws Exception {
    String hostPort = uri.substring("redis://".length());
    String port = hostPort.substring(hostPort.indexOf(':') + 1);
    // About the requested duration at the throughput this machine gives; bounded by the timeout.
    Process process =
        new ProcessBuilder(
                "redis-benchmark", "-h", "127.0.0.1", "-p", port, "-c", Integer.toString(threads), "-n",
                Integer.toString(40_000 * seconds), "-q", "EVALSHA", sha, "0")
            .redirectErrorStream(true)
            .start();
    StringBuilder output = new StringBuilder();
    try (BufferedReader reader =
        new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = reader.readLine()) != null) {
        output.append(line).append('\n');
      }
    }
    if (!process.waitFor(120, TimeUnit.SECONDS)) {
      process.destroyForcibly();
      throw new IllegalStateException("redis-benchmark did not finish");
    }
    String text = output.toString();
    java.util.regex.Matcher m = java.util.regex.Pattern.compile("([0-9.]+) requests per second").matcher(text);
    double last = Double.NaN;
    while (m.find()) {
      last = Double.parseDouble(m.group(1));
    }
    System.out.println("\nredis-benchmark said: " + text.replace('\r', '\n').lines().filter(l -> l.contains("requests per second")).reduce((a, b) -> b).orElse(text));
    return last;
  }

  /** MEMORY USAGE of one key, full runs, beside the sorted-set log of the same requests. */
  private static void memory(
      RedisCommands<String, String> admin, RedisBackend backend, RedisCommands<String, String> zset, String sha) {
    admin.flushall();
    AtomicLong nanos = new AtomicLong();
    Ticker ticker = nanos::get;
    System.out.printf("%n## MEMORY USAGE ... SAMPLES 0 of one id's state, limit full%n%n");
    System.out.println("| limit | runs stored | ours (bytes) | sorted-set log (bytes) |");
    System.out.println("|---|---:|---:|---:|");
    for (Limit limit : List.of(Limit.of(1000, Duration.ofMinutes(1)), Limit.exact(10_000, Duration.ofSeconds(10)))) {
      nanos.set(0);
      RedisRateLimiter limiter = RedisRateLimiter.builder(backend).limit(limit).clientTime(ticker)
          .commandTimeout(Duration.ofSeconds(5)).failurePolicy(FailurePolicy.failClosed()).build();
      String id = "memory-" + limit.permits();
      // One grant per bucket (60 ms apart) or per microsecond: the most runs the limit can hold.
      // The ticker read 0 when the limiter was built (its origin) and now reads the wall clock in
      // nanoseconds, so buckets are as large as server time would make them.
      long step = limit.isExact() ? 1_000 : limit.precisionNanos();
      long t = System.currentTimeMillis() * 1_000_000;
      for (long i = 0; i < limit.permits(); i++, t += step) {
        nanos.set(t);
        if (!limiter.tryAcquire(id, 1)) {
          throw new IllegalStateException("refused at " + i);
        }
      }
      String key = "sw:{u" + java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(id.getBytes(StandardCharsets.UTF_8)) + "}:"
          + limit.permits() + ":" + limit.windowNanos() / 1000 + ":" + (limit.isExact() ? 1 : limit.precisionNanos() / 1000);
      Long ours = (Long) admin.dispatch(io.lettuce.core.protocol.CommandType.MEMORY,
          new io.lettuce.core.output.IntegerOutput<>(StringCodec.UTF8),
          new io.lettuce.core.protocol.CommandArgs<>(StringCodec.UTF8).add("USAGE").addKey(key).add("SAMPLES").add(0));
      long runs = (admin.llen(key) + 1) / 2; // a header holding the newest run, then closed-run pairs
      String zkey = "zset:{" + id + "}";
      long now = System.currentTimeMillis();
      for (long i = 0; i < limit.permits(); i++) {
        zset.evalsha(sha, ScriptOutputType.INTEGER, new String[] {zkey},
            Long.toString(limit.windowNanos() / 1_000_000 * 100), Long.toString(limit.permits() + 1),
            Long.toString(now + i), Long.toString(i));
      }
      Long log = (Long) admin.dispatch(io.lettuce.core.protocol.CommandType.MEMORY,
          new io.lettuce.core.output.IntegerOutput<>(StringCodec.UTF8),
          new io.lettuce.core.protocol.CommandArgs<>(StringCodec.UTF8).add("USAGE").addKey(zkey).add("SAMPLES").add(0));
      System.out.printf(Locale.ROOT, "| %s | %d | %d | %d |%n", limit, runs, ours, log);
    }
  }
}
