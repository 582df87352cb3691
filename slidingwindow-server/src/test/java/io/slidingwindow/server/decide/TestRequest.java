package io.slidingwindow.server.decide;

import io.slidingwindow.Ticker;
import io.slidingwindow.server.ConfigException;
import io.slidingwindow.server.config.RateLimitConfig;
import io.slidingwindow.server.config.TimeUnitName;
import io.slidingwindow.server.settings.Settings;
import java.util.List;

/** A {@link DecisionRequest} written in a test, and deciders in memory to ask. */
public record TestRequest(String domain, long hits, List<TestRequest.Descriptor> descriptors)
    implements DecisionRequest {

  /**
   * One descriptor: key/value pairs, its own hits ({@code -1} for none) and limit ({@code unit}
   * null for none).
   */
  @SuppressWarnings("ArrayRecordComponent") // written once in a test, never compared
  public record Descriptor(String[] pairs, long hits, long overrideRequests, TimeUnitName unit) {

    /** The same descriptor with hits of its own. */
    public Descriptor hits(long hits) {
      return new Descriptor(pairs, hits, overrideRequests, unit);
    }

    /** The same descriptor with a limit of its own. */
    public Descriptor override(long requests, TimeUnitName unit) {
      return new Descriptor(pairs, hits, requests, unit);
    }
  }

  /** A descriptor of key/value pairs. */
  public static Descriptor descriptor(String... pairs) {
    return new Descriptor(pairs, -1, 0, null);
  }

  /** A request of {@code descriptors}, without hits of its own. */
  public static TestRequest of(String domain, Descriptor... descriptors) {
    return new TestRequest(domain, 0, List.of(descriptors));
  }

  /** A decider counting in memory on {@code ticker}, with the default bounds of overrides. */
  public static Decider decider(RateLimitConfig config, Ticker ticker, long maxKeysPerRule)
      throws ConfigException {
    return new Decider(
        config,
        new MemoryStore(ticker),
        new Settings.Requests(true, 16, 10_000, maxKeysPerRule, 1000),
        ticker);
  }

  @Override
  public int count() {
    return descriptors.size();
  }

  @Override
  public int entries(int d) {
    return descriptors.get(d).pairs().length / 2;
  }

  @Override
  public String key(int d, int e) {
    return descriptors.get(d).pairs()[2 * e];
  }

  @Override
  public String value(int d, int e) {
    return descriptors.get(d).pairs()[2 * e + 1];
  }

  @Override
  public long hits(int d) {
    return descriptors.get(d).hits();
  }

  @Override
  public boolean hasOverride(int d) {
    return descriptors.get(d).unit() != null;
  }

  @Override
  public long overrideRequests(int d) {
    return descriptors.get(d).overrideRequests();
  }

  @Override
  public TimeUnitName overrideUnit(int d) {
    return descriptors.get(d).unit();
  }
}
