package io.slidingwindow.benchmarks.server;

import io.slidingwindow.Ticker;
import io.slidingwindow.benchmarks.ThroughputRun;
import io.slidingwindow.server.config.ConfigParser;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.server.decide.MemoryStore;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import io.slidingwindow.server.grpc.EnvoyResponses;
import io.slidingwindow.server.grpc.ProtobufRequest;
import io.slidingwindow.server.settings.Settings;
import java.util.List;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;

/**
 * What the service's own work costs per call in memory, without gRPC: deciding a parsed {@code
 * RateLimitRequest} of one descriptor (matching, the keyed limiter, the statuses), and building the
 * response message from the verdict. Run with {@code -prof gc}: {@code decide}'s bytes per call are
 * what the service allocates beyond the protobuf messages (its statuses and verdict, and core's
 * {@code Decision}); {@code decideAndRespond} adds the response message.
 */
@State(Scope.Thread)
public class DecideBenchmark extends ThroughputRun {

  /** {@code granted}: within a limit of 10^9 a second; {@code refused}: over 1 an hour. */
  @Param({"granted", "refused"})
  public String key;

  private Decider decider;
  private ProtobufRequest request;

  @Setup
  public void setUp() throws Exception {
    decider =
        new Decider(
            ConfigParser.parse(
                List.of(
                    new ConfigParser.Source(
                        "bench.yaml",
                        """
                        domain: bench
                        descriptors:
                          - key: granted
                            rate_limit: {unit: second, requests_per_unit: 1000000000}
                          - key: refused
                            rate_limit: {unit: hour, requests_per_unit: 1}
                        """))),
            new MemoryStore(Ticker.system()),
            new Settings.Requests(true, 16, 10_000, 100_000, 1_000),
            Ticker.system());
    request =
        new ProtobufRequest(
            RateLimitRequest.newBuilder()
                .setDomain("bench")
                .addDescriptors(
                    RateLimitDescriptor.newBuilder()
                        .addEntries(
                            RateLimitDescriptor.Entry.newBuilder().setKey(key).setValue("v")))
                .build());
  }

  /** One decision. */
  @Benchmark
  public Verdict decide() {
    return decider.decide(request);
  }

  /** One decision and its response message. */
  @Benchmark
  public RateLimitResponse decideAndRespond() {
    return EnvoyResponses.of(decider.decide(request));
  }
}
