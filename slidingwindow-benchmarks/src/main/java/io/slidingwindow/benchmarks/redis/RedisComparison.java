package io.slidingwindow.benchmarks.redis;

import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.slidingwindow.benchmarks.Proc;
import io.slidingwindow.benchmarks.redis.Results.Case;
import io.slidingwindow.benchmarks.redis.Results.Round;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * BENCHMARK HARNESS, not a test and not JMH: Redis-backed limiters side by side on one
 * redis-server, with a fixed number of client threads and a fixed duration per case.
 *
 * <p>Contenders, each limiting requests per minute per id: this library's {@code RedisRateLimiter}
 * blocking ({@code tryAcquire} from every client thread), the same with its refusal cache off, and
 * asynchronous ({@code decideAsync}, 4 threads keeping 64 requests each in flight); Bucket4j's
 * Lettuce proxy manager (compare-and-swap); both again over Jedis, blocking (this library's limiter
 * on {@code JedisBackends.standalone}, Bucket4j's Jedis proxy manager on a {@code JedisPool} of one
 * connection per thread); Redisson's {@code RRateLimiter}; the common sorted-set script (a log of
 * every request); and two floors that limit nothing: one Lettuce EVALSHA of {@code return 1} per
 * call, and {@code redis-benchmark} running the same EVALSHA (distinct workload only). Three
 * workloads: distinct ids (each thread walks a pool of 10 000 ids), one hot id shared by every
 * thread that is soon refused, and one hot id with a limit so high that every call is granted (so
 * every call writes, and compare-and-swap contends).
 *
 * <p>Contenders run in rounds, per workload: every contender once per round, the order rotated by
 * one each round, so that a burst of noise from elsewhere on the machine lands on one round of each
 * contender rather than on all of one. Each case is FLUSHALL, a warm-up, CONFIG RESETSTAT, then the
 * measured run, around which the harness reads {@code /proc}: the machine's CPU steal, the load
 * average, this JVM's CPU time and redis-server's (its pid from {@code INFO server}). Figures are
 * the median (min, max) over rounds; a ratio is the median (min, max) of the ratios of the same
 * round. Rounds with more than 5 % steal are flagged. Before the rounds, {@code MEMORY USAGE} of
 * one key for 1000 per minute and for an exact 10 000 per 10 s, beside the sorted-set log of the
 * same requests.
 *
 * <p>It FLUSHES the target Redis: run it only against a scratch redis-server of your own on
 * 127.0.0.1 ({@code scripts/bench-redis.sh} starts one and runs this). Usage: {@code java
 * -Djava.awt.headless=true -cp slidingwindow-benchmarks/target/benchmarks.jar
 * io.slidingwindow.benchmarks.redis.RedisComparison redis://127.0.0.1:PORT [secondsPerCase=10]
 * [rounds=3] [threads=16] [imageDir=docs/images]
 * [markdown=slidingwindow-benchmarks/target/redis-comparison.md]}. Options: {@code
 * -Dwarmup=SECONDS} (3), {@code -DmemoryOnly=true}, {@code -Dcontenders=slidingwindow,Bucket4j} and
 * {@code -Dworkloads=distinct} (only the contenders whose names start so, and the workloads so
 * named). Writes the Markdown to the file and stdout, and {@code redis-comparison.png} into the
 * image directory.
 */
public final class RedisComparison {

  private static final Pattern LOCAL_URI = Pattern.compile("redis://127\\.0\\.0\\.1:(\\d{1,5})");
  private static final int ID_POOL = 10_000;
  private static final long PERMITS = 1000;
  static final String DISTINCT = "distinct";

  private record Workload(String name, List<String> ids, long permits) {}

  private RedisComparison() {}

  public static void main(String[] args) throws Exception {
    String uri = args.length > 0 ? args[0] : "redis://127.0.0.1:6399";
    int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
    int rounds = args.length > 2 ? Integer.parseInt(args[2]) : 3;
    int threads = args.length > 3 ? Integer.parseInt(args[3]) : 16;
    Path imageDir = Path.of(args.length > 4 ? args[4] : "docs/images");
    Path markdown =
        Path.of(args.length > 5 ? args[5] : "slidingwindow-benchmarks/target/redis-comparison.md");
    int warmup = Integer.getInteger("warmup", 3);
    Matcher local = LOCAL_URI.matcher(uri);
    if (!local.matches()) {
      throw new IllegalArgumentException(
          "uri must be a scratch redis-server at redis://127.0.0.1:<port>, was " + uri);
    }
    if (seconds < 1 || rounds < 1 || threads < 1 || warmup < 0) {
      throw new IllegalArgumentException(
          String.format(
              Locale.ROOT,
              "secondsPerCase, rounds and threads must be positive and warmup not negative, were"
                  + " %d, %d, %d, %d",
              seconds,
              rounds,
              threads,
              warmup));
    }
    int port = Integer.parseInt(local.group(1));

    RedisClient adminClient = RedisClient.create(uri);
    StatefulRedisConnection<String, String> adminConnection = adminClient.connect();
    RedisCommands<String, String> admin = adminConnection.sync();
    String serverInfo = admin.info("server");
    long redisPid = redisPid(serverInfo);
    String redisVersion = field(serverInfo, "redis_version");

    try (Contenders contenders = new Contenders(uri, port, threads)) {
      contenders.loadScripts();
      String onlyContenders = System.getProperty("contenders", "");
      String onlyWorkloads = System.getProperty("workloads", "");
      String memory = "";
      if (onlyContenders.isEmpty() && onlyWorkloads.isEmpty()) {
        memory = RedisMemory.table(admin, contenders.backend(), admin, contenders.sortedSetSha());
      }
      if (Boolean.getBoolean("memoryOnly")) {
        System.out.print(memory);
        return;
      }

      List<String> names = selectContenders(onlyContenders);
      List<Workload> workloads = new ArrayList<>();
      for (Workload w : workloads()) {
        if (onlyWorkloads.isEmpty() || List.of(onlyWorkloads.split(",")).contains(w.name())) {
          workloads.add(w);
        }
      }

      List<Case> cases = new ArrayList<>();
      List<Round> roundList = new ArrayList<>();
      for (Workload workload : workloads) {
        List<String> here = new ArrayList<>(names);
        if (!workload.name().equals(DISTINCT)) {
          here.remove(Contenders.REDIS_BENCHMARK); // it sends no keys: one figure is enough
        }
        for (int round = 1; round <= rounds && !here.isEmpty(); round++) {
          int shift = (round - 1) % here.size();
          List<String> order = new ArrayList<>(here.subList(shift, here.size()));
          order.addAll(here.subList(0, shift));
          Proc.CpuTimes roundStart = Proc.cpuTimes();
          for (String name : order) {
            Case c = measure(admin, contenders, workload, round, name, seconds, warmup, redisPid);
            cases.add(c);
            System.err.printf(
                Locale.ROOT,
                "%s, round %d, %s: %s requests/s, steal %s %%%n",
                workload.name(),
                round,
                name,
                Results.whole(c.perSecond()),
                Results.decimals(c.stealPercent(), 1));
          }
          roundList.add(
              new Round(
                  workload.name(),
                  round,
                  order,
                  Proc.cpuTimes().stealPercentSince(roundStart),
                  Proc.loadAverage()));
        }
      }

      List<String> workloadNames = workloads.stream().map(Workload::name).toList();
      String header =
          header(uri, seconds, rounds, threads, warmup, redisVersion, redisPid, workloads);
      String text = new Report(workloadNames, names, cases, roundList).render(header, memory);
      Files.createDirectories(markdown.toAbsolutePath().getParent());
      Files.writeString(markdown, text, StandardCharsets.UTF_8);
      Path png = imageDir.resolve("redis-comparison.png");
      ThroughputChart.write(
          cases,
          workloadNames,
          names,
          String.format(
              Locale.ROOT,
              "Redis limiters, %d client threads, %d s per case, median and min-max of %d rounds",
              threads,
              seconds,
              rounds),
          png);
      System.out.print(text);
      System.out.println("\nWrote " + markdown + " and " + png);
    } finally {
      adminConnection.close();
      adminClient.shutdown();
    }
  }

  /**
   * The contenders, in table order, whose names start with one of the comma-separated prefixes of
   * {@code filter} (every contender when it is empty): {@code "slidingwindow,Bucket4j"} picks this
   * library's and Bucket4j's, over Lettuce and over Jedis; {@code
   * "slidingwindow-redis-jedis,Bucket4j-Jedis"} picks the two over Jedis.
   */
  static List<String> selectContenders(String filter) {
    List<String> names = new ArrayList<>();
    for (String name : Contenders.NAMES) {
      if (filter.isEmpty() || List.of(filter.split(",")).stream().anyMatch(name::startsWith)) {
        names.add(name);
      }
    }
    return names;
  }

  private static List<Workload> workloads() {
    List<String> distinct = new ArrayList<>();
    for (int i = 0; i < ID_POOL; i++) {
      distinct.add("user-" + i);
    }
    return List.of(
        new Workload(DISTINCT, distinct, PERMITS),
        new Workload("hot, refusing", List.of("hot"), PERMITS),
        new Workload("hot, granting", List.of("hot"), 1_000_000_000L));
  }

  /** One case: a fresh contender on a flushed Redis, warmed up, then measured. */
  private static Case measure(
      RedisCommands<String, String> admin,
      Contenders contenders,
      Workload workload,
      int round,
      String name,
      int seconds,
      int warmup,
      long redisPid)
      throws Exception {
    boolean external = name.equals(Contenders.REDIS_BENCHMARK);
    admin.flushall();
    Contenders.Contender contender = contenders.create(name, workload.permits());
    contender.prepare(workload.ids());
    if (warmup > 0 && !external) {
      contender.run(workload.ids(), warmup);
    }
    admin.configResetstat();
    Proc.CpuTimes cpuBefore = Proc.cpuTimes();
    long selfBefore = Proc.selfCpuNanos();
    long redisBefore = Proc.processCpuNanos(redisPid);
    Load.Count count = contender.run(workload.ids(), seconds);
    long redisAfter = Proc.processCpuNanos(redisPid);
    long selfAfter = Proc.selfCpuNanos();
    double steal = Proc.cpuTimes().stealPercentSince(cpuBefore);
    double load = Proc.loadAverage();

    long usec = 0;
    StringBuilder commands = new StringBuilder();
    for (Map.Entry<String, long[]> stat : commandStats(admin.info("commandstats")).entrySet()) {
      String command = stat.getKey();
      if (List.of("eval", "evalsha", "get", "set").contains(command)) {
        usec += stat.getValue()[1];
        commands.append(
            String.format(
                Locale.ROOT,
                "%s%s %.2f",
                commands.length() == 0 ? "" : ", ",
                command.toUpperCase(Locale.ROOT),
                stat.getValue()[0] / (double) count.requests()));
      }
    }
    return new Case(
        workload.name(),
        round,
        name,
        count,
        steal,
        load,
        external || selfBefore < 0 ? -1 : selfAfter - selfBefore,
        redisBefore < 0 || redisAfter < 0 ? -1 : redisAfter - redisBefore,
        usec,
        commands.length() == 0 ? "none" : commands.toString());
  }

  /**
   * The pid of redis-server from {@code INFO server}, or -1 when this machine's {@code /proc} does
   * not show a redis-server or valkey-server under that pid (another namespace, another host).
   */
  private static long redisPid(String serverInfo) {
    String pid = field(serverInfo, "process_id");
    long value = pid == null ? -1 : Long.parseLong(pid);
    String comm = value > 0 ? Proc.commandName(value) : null;
    if (comm == null || !(comm.startsWith("redis") || comm.startsWith("valkey"))) {
      System.err.println(
          "redis-server's process " + pid + " is not visible in /proc: no server CPU figures");
      return -1;
    }
    return value;
  }

  private static String field(String info, String name) {
    for (String line : info.split("\r?\n", -1)) {
      if (line.startsWith(name + ":")) {
        return line.substring(name.length() + 1).trim();
      }
    }
    return null;
  }

  /** Parses {@code cmdstat_<name>:calls=..,usec=..} lines into name → {calls, usec}. */
  static Map<String, long[]> commandStats(String info) {
    Map<String, long[]> stats = new LinkedHashMap<>();
    for (String line : info.split("\r?\n", -1)) {
      if (!line.startsWith("cmdstat_")) {
        continue;
      }
      String name = line.substring("cmdstat_".length(), line.indexOf(':'));
      long calls = 0;
      long usec = 0;
      for (String field : line.substring(line.indexOf(':') + 1).split(",", -1)) {
        String[] kv = field.split("=", -1);
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

  private static String header(
      String uri,
      int seconds,
      int rounds,
      int threads,
      int warmup,
      String redisVersion,
      long redisPid,
      List<Workload> workloads) {
    StringBuilder h = new StringBuilder();
    h.append("## Redis comparison, run of ")
        .append(Instant.now().truncatedTo(ChronoUnit.SECONDS))
        .append("\n\n");
    h.append(
        String.format(
            Locale.ROOT,
            "%d client threads (the async contender: %d threads x %d in flight), %d s per case"
                + " after %d s of warm-up, %d rounds per workload with the order rotated each"
                + " round. Redis %s on %s (pid %d), Java %s (%s), %d CPUs seen by the JVM, load"
                + " average %s at the end. Workloads (limit per minute per id): %s.%n",
            threads,
            Contenders.ASYNC_THREADS,
            Contenders.ASYNC_IN_FLIGHT_PER_THREAD,
            seconds,
            warmup,
            rounds,
            redisVersion,
            uri,
            redisPid,
            System.getProperty("java.version"),
            System.getProperty("java.vm.name"),
            Runtime.getRuntime().availableProcessors(),
            Results.decimals(Proc.loadAverage(), 2),
            String.join(
                ", ",
                workloads.stream()
                    .map(w -> w.name() + " " + Results.whole((double) w.permits()))
                    .toList())));
    return h.toString();
  }
}
