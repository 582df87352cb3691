package io.slidingwindow.benchmarks.server;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.slidingwindow.benchmarks.Proc;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * BENCHMARK HARNESS: drives the rate limit service's gRPC {@code ShouldRateLimit} (Envoy's
 * protocol) from this process while the service runs in another, and prints one Markdown table row
 * per concurrency level: decisions per second, round-trip percentiles, and a client-side check of
 * the sliding-window guarantee on every grant seen ({@link GrantCheck}).
 *
 * <p>The load: domain {@code load}, descriptor {@code user=<value>}, one limit of {@code permits}
 * per {@code window} for each value; {@code values} cold values ({@code u0}, {@code u1}, ...)
 * chosen uniformly and one hot value ({@code hot}) asked for a {@code hotShare} of the calls. The
 * defaults, 100 per second, 500 cold values and half the calls on the hot one, keep the hot value
 * over its limit from a few hundred calls a second on (a busy machine), so that its grants test the
 * guarantee, while the cold values are rarely refused. An answer whose limit is not {@code permits}
 * (a configuration that does not match the options) counts as an error. A cold value is asked a few
 * times a second at these rates, far below its limit, so a refusal of one in the measured period is
 * the failure policy answering (on Redis: a call over its timeout, or the breaker open), not the
 * limit; the table counts them. It is a closed loop: {@code concurrency} chains of calls on the
 * async stub, each sending its next call when the previous answer arrives, so exactly that many
 * calls are outstanding; the channels (HTTP/2 connections) are shared round-robin among the chains.
 * Latency is the round trip of each call as the client sees it, without correction for coordinated
 * omission (a closed loop sends less while the service is slow).
 *
 * <p>Usage: {@code ServerLoad --write-config FILE [POLICY]} writes the service configuration for
 * the defaults, with the failure policy {@code POLICY} ({@code closed} unless given: with {@code
 * open}, the service's default, every Redis call that fails or takes over its timeout is a grant
 * that is not counted, and the check below would report those); {@code ServerLoad --header} prints
 * the table header; {@code ServerLoad --port N --mode memory [--seconds 10] [--warmup 3]
 * [--concurrency 64,256] [--channels 4] [--values 500] [--hot-share 0.5] [--permits 100]
 * [--window-ms 1000]} runs the levels against {@code 127.0.0.1:N}. Exits 3 when a check finds a
 * violation, 2 on bad arguments.
 */
public final class ServerLoad {

  static final String DOMAIN = "load";
  static final String KEY = "user";
  static final String HOT = "hot";
  static final int DEFAULT_PERMITS = 100;
  static final long DEFAULT_WINDOW_MILLIS = 1000;

  private static final int CALL_DEADLINE_SECONDS = 5;
  private static final long DRAIN_SECONDS = 15;

  private ServerLoad() {}

  /**
   * The service configuration: one sliding limit per {@code user} value, and what answers while
   * Redis fails ({@code open}, {@code closed} or {@code local}; no effect in memory).
   */
  static String configYaml(int permits, long windowMillis, String failurePolicy) {
    return "# Written by ServerLoad: the rate limit service's load benchmark.\n"
        + "domain: "
        + DOMAIN
        + "\n"
        + "failure_policy: "
        + failurePolicy
        + "\n"
        + "descriptors:\n"
        + "  - key: "
        + KEY
        + "\n"
        + "    rate_limit:\n"
        + "      requests_per_unit: "
        + permits
        + "\n"
        + "      window: "
        + windowMillis
        + "ms\n";
  }

  static String header() {
    return "| mode | concurrency | decisions/s | p50 ms | p99 ms | p99.9 ms | max ms | OK share"
        + " | cold values refused | errors | grants checked | hot value: most in a window / N | violations"
        + " | load avg (1 min) | CPU steal |\n"
        + "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|";
  }

  /** Runs the tool; see the class comment. */
  public static void main(String[] args) throws Exception {
    if ((args.length == 2 || args.length == 3) && args[0].equals("--write-config")) {
      String policy = args.length == 3 ? args[2] : "closed";
      Files.writeString(
          Path.of(args[1]),
          configYaml(DEFAULT_PERMITS, DEFAULT_WINDOW_MILLIS, policy),
          StandardCharsets.UTF_8);
      return;
    }
    if (args.length == 1 && args[0].equals("--header")) {
      System.out.println(header());
      return;
    }
    LoadOptions options;
    try {
      options = LoadOptions.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("ServerLoad: " + e.getMessage());
      System.exit(2);
      return;
    }
    boolean violated = false;
    List<ManagedChannel> channels = new ArrayList<>();
    ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor();
    try {
      for (int i = 0; i < options.channels(); i++) {
        channels.add(
            NettyChannelBuilder.forAddress("127.0.0.1", options.port())
                .usePlaintext()
                .directExecutor()
                .build());
      }
      for (int concurrency : options.concurrency()) {
        Level level = new Level(options, concurrency, channels, retries);
        Row row = level.run();
        System.out.println(row.markdown());
        System.out.flush();
        violated |= row.violations() > 0;
      }
    } finally {
      retries.shutdownNow();
      for (ManagedChannel channel : channels) {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
    if (violated) {
      System.err.println("ServerLoad: the sliding-window check found violations");
      System.exit(3);
    }
  }

  /** One table row. */
  record Row(
      String mode,
      int concurrency,
      double decisionsPerSecond,
      Latencies latencies,
      double okShare,
      long coldRefused,
      long errors,
      long grantsChecked,
      long hotMax,
      long permits,
      int violations,
      double loadAverage,
      double stealPercent,
      long unrecorded) {

    String markdown() {
      String checked =
          unrecorded == 0
              ? Long.toString(grantsChecked)
              : grantsChecked + " (log full: " + unrecorded + " answers unchecked)";
      return String.format(
          Locale.ROOT,
          "| %s | %d | %,.0f | %s | %s | %s | %s | %.1f %% | %d | %d | %s | %d / %d | %d | %.2f | %.1f %% |",
          mode,
          concurrency,
          decisionsPerSecond,
          Latencies.millis(latencies.atPercentile(50)),
          Latencies.millis(latencies.atPercentile(99)),
          Latencies.millis(latencies.atPercentile(99.9)),
          Latencies.millis(latencies.max()),
          100 * okShare,
          coldRefused,
          errors,
          checked,
          hotMax,
          permits,
          violations,
          loadAverage,
          stealPercent);
    }
  }

  /** One concurrency level: warm-up, measurement, then the checks. */
  private static final class Level {

    private final LoadOptions options;
    private final int concurrency;
    private final List<RateLimitServiceGrpc.RateLimitServiceStub> stubs = new ArrayList<>();
    private final ScheduledExecutorService retries;
    private final RateLimitRequest[] requests;
    private final AnswerLog log;
    private final CountDownLatch finished;
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong unrecorded = new AtomicLong();
    private final AtomicReference<Status> firstError = new AtomicReference<>();
    private final long origin = System.nanoTime();
    private final long measureFrom;
    private final long measureTo;

    Level(
        LoadOptions options,
        int concurrency,
        List<ManagedChannel> channels,
        ScheduledExecutorService retries) {
      this.options = options;
      this.concurrency = concurrency;
      this.retries = retries;
      for (ManagedChannel channel : channels) {
        stubs.add(RateLimitServiceGrpc.newStub(channel));
      }
      requests = new RateLimitRequest[options.values() + 1];
      for (int v = 0; v <= options.values(); v++) {
        String value = v == options.values() ? HOT : "u" + v;
        requests[v] =
            RateLimitRequest.newBuilder()
                .setDomain(DOMAIN)
                .addDescriptors(
                    RateLimitDescriptor.newBuilder()
                        .addEntries(
                            RateLimitDescriptor.Entry.newBuilder().setKey(KEY).setValue(value)))
                .build();
      }
      log = new AnswerLog(options.capacity());
      finished = new CountDownLatch(concurrency);
      measureFrom = TimeUnit.SECONDS.toNanos(options.warmupSeconds());
      measureTo = measureFrom + TimeUnit.SECONDS.toNanos(options.seconds());
    }

    /** Nanoseconds since this level began. */
    private long now() {
      return System.nanoTime() - origin;
    }

    Row run() throws InterruptedException {
      Proc.CpuTimes cpuBefore = Proc.cpuTimes();
      for (int c = 0; c < concurrency; c++) {
        new Chain(stubs.get(c % stubs.size())).next();
      }
      long waitNanos = measureTo + TimeUnit.SECONDS.toNanos(DRAIN_SECONDS) - now();
      if (!finished.await(waitNanos, TimeUnit.NANOSECONDS)) {
        throw new IllegalStateException(
            finished.getCount()
                + " call chains still running "
                + DRAIN_SECONDS
                + " s after the end");
      }
      Proc.CpuTimes cpuAfter = Proc.cpuTimes();
      if (firstError.get() != null) {
        System.err.println(
            "ServerLoad: " + errors.get() + " calls failed; the first: " + firstError.get());
      }
      return summarize(cpuAfter.stealPercentSince(cpuBefore));
    }

    private Row summarize(double stealPercent) {
      int n = log.size();
      Latencies latencies = new Latencies();
      long ok = 0;
      long coldRefused = 0;
      long measured = 0;
      int[] grantsPerValue = new int[requests.length];
      for (int i = 0; i < n; i++) {
        long received = log.receivedAt(i);
        if (received >= measureFrom && received < measureTo) {
          measured++;
          latencies.record(received - log.sentAt(i));
          if (log.code(i) == AnswerLog.OK) {
            ok++;
          } else if (log.value(i) != options.values()) {
            coldRefused++;
          }
        }
        if (log.code(i) == AnswerLog.OK) {
          grantsPerValue[log.value(i)]++;
        }
      }
      // Every grant of the level is checked, warm-up included: more grants, the same soundness.
      long[][] sent = new long[requests.length][];
      long[][] received = new long[requests.length][];
      for (int v = 0; v < requests.length; v++) {
        sent[v] = new long[grantsPerValue[v]];
        received[v] = new long[grantsPerValue[v]];
      }
      int[] filled = new int[requests.length];
      for (int i = 0; i < n; i++) {
        if (log.code(i) == AnswerLog.OK) {
          int v = log.value(i);
          sent[v][filled[v]] = log.sentAt(i);
          received[v][filled[v]] = log.receivedAt(i);
          filled[v]++;
        }
      }
      long grants = 0;
      int violations = 0;
      long hotMax = 0;
      for (int v = 0; v < requests.length; v++) {
        GrantCheck.Result result =
            GrantCheck.check(
                options.permits(),
                options.windowNanos(),
                options.slackNanos(),
                sent[v],
                received[v]);
        grants += result.grants();
        if (result.violated()) {
          violations++;
          System.err.println("ServerLoad: violation for value " + v + ": " + result);
        }
        if (v == options.values()) {
          hotMax = result.maxContained();
        }
      }
      return new Row(
          options.mode(),
          concurrency,
          measured / (double) options.seconds(),
          latencies,
          measured == 0 ? Double.NaN : ok / (double) measured,
          coldRefused,
          errors.get(),
          grants,
          hotMax,
          options.permits(),
          violations,
          Proc.loadAverage(),
          stealPercent,
          unrecorded.get());
    }

    /** One chain of calls, one outstanding at a time. */
    private final class Chain implements StreamObserver<RateLimitResponse> {

      private final RateLimitServiceGrpc.RateLimitServiceStub stub;
      // Written before a call starts and read in its callbacks: gRPC orders the two.
      private int value;
      private long sentAt;
      private byte code;

      Chain(RateLimitServiceGrpc.RateLimitServiceStub stub) {
        this.stub = stub;
      }

      void next() {
        long now = now();
        if (now >= measureTo) {
          finished.countDown();
          return;
        }
        ThreadLocalRandom random = ThreadLocalRandom.current();
        value =
            random.nextDouble() < options.hotShare()
                ? options.values()
                : random.nextInt(options.values());
        code = 0;
        sentAt = now();
        stub.withDeadlineAfter(CALL_DEADLINE_SECONDS, TimeUnit.SECONDS)
            .shouldRateLimit(requests[value], this);
      }

      @Override
      public void onNext(RateLimitResponse response) {
        code =
            switch (response.getOverallCode()) {
              case OK -> AnswerLog.OK;
              case OVER_LIMIT -> AnswerLog.OVER_LIMIT;
              default -> 0;
            };
        if (response.getStatusesCount() != 1
            || response.getStatuses(0).getCurrentLimit().getRequestsPerUnit()
                != options.permits()) {
          code = 0;
          firstError.compareAndSet(
              null,
              Status.FAILED_PRECONDITION.withDescription(
                  "expected one status with a limit of " + options.permits() + ": " + response));
        }
      }

      @Override
      public void onError(Throwable t) {
        errors.incrementAndGet();
        firstError.compareAndSet(null, Status.fromThrowable(t));
        // Not at once: a call that fails at its start reports here on the caller's stack.
        // A throw from next() would leave this chain stalled, which run() reports at the end.
        var unused = retries.schedule(this::next, 1, TimeUnit.MILLISECONDS);
      }

      @Override
      public void onCompleted() {
        long receivedAt = now();
        if (code == 0) {
          errors.incrementAndGet();
        } else if (!log.record(value, sentAt, receivedAt, code)) {
          unrecorded.incrementAndGet();
        }
        next();
      }
    }
  }
}
