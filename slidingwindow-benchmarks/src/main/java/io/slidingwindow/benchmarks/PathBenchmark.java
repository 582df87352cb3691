package io.slidingwindow.benchmarks;

import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.RequestPaths;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What the path checks add to each request before any rule runs: the strict firewall on the raw
 * request URI, and the readings a rule is matched against (the container's path as Tomcat gives it,
 * and the raw URI's), for a plain path and for an odd spelling that the firewall would refuse.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Benchmark)
public class PathBenchmark {

  @Param({"/v1/product/12345/details", "/v1/product/..;jsessionid=x/%2e%2e/details"})
  public String requestUri;

  private final PathFirewall firewall = PathFirewall.strict();
  private String containerPath;

  @org.openjdk.jmh.annotations.Setup
  public void setUp() {
    containerPath = RequestPaths.normalizedReading(requestUri);
  }

  @Benchmark
  public Optional<String> firewallCheck() {
    return firewall.check(requestUri);
  }

  @Benchmark
  public List<String> readings() {
    return RequestPaths.readings(containerPath, requestUri, "");
  }
}
