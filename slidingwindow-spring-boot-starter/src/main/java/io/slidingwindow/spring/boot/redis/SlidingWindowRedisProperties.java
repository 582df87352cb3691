package io.slidingwindow.spring.boot.redis;

import io.slidingwindow.FailurePolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.core.env.Environment;

/**
 * Where the rules keep their windows when they are shared through Redis, under {@code
 * slidingwindow.redis}. Setting {@code uri} (standalone), {@code cluster.nodes} or {@code
 * sentinel.master} with {@code sentinel.nodes} switches every rule from the in-memory backend to
 * Redis; set one of them only. Without them, the application's own Spring Data Redis connection is
 * used when {@code spring.data.redis.*} is configured (see {@code application-connection}).
 */
@ConfigurationProperties(prefix = SlidingWindowRedisProperties.PREFIX)
public class SlidingWindowRedisProperties {

  /** The prefix of every property here. */
  public static final String PREFIX = "slidingwindow.redis";

  /** A standalone server, e.g. {@code redis://127.0.0.1:6379}. */
  private String uri;

  /** Redis Cluster. */
  private final Cluster cluster = new Cluster();

  /** Redis Sentinel. */
  private final Sentinel sentinel = new Sentinel();

  /**
   * Whether the limiter uses the application's own connection factory (Spring Data Redis, {@code
   * spring.data.redis.*}, on Lettuce or Jedis) when {@code uri}, {@code cluster.nodes} and {@code
   * sentinel.master} are all unset. Unset (the default): only when some {@code spring.data.redis}
   * property is set; true: whenever the application has a {@code RedisConnectionFactory}; false:
   * never.
   */
  private Boolean applicationConnection;

  /** How long the health indicator waits for its probe of Redis before it reports down. */
  private Duration healthTimeout = Duration.ofSeconds(1);

  /** The first part of every key; the rule's name follows it. */
  private String keyPrefix = "sw";

  /** How long a limiter waits for Redis before its failure policy decides. */
  private Duration commandTimeout = Duration.ofMillis(50);

  /**
   * What a limiter does while Redis fails (an error, no answer within the command timeout, an open
   * circuit breaker): {@code local} limits each instance on its own, in memory, with the rule's
   * limits (the default); {@code allow} lets every request through; {@code refuse} refuses every
   * request.
   */
  private FailurePolicy onFailure = FailurePolicy.DEFAULT;

  /**
   * How many ids' refusals each rule's limiter remembers, to refuse a full id without a round trip
   * until its window can have room; 0 turns it off.
   */
  private int refusalCache = 4096;

  /**
   * Whether requests to one rule's limiter that wait at the same moment share one script call
   * (standalone and Sentinel; on Cluster each request is a call of its own).
   */
  private boolean batching = true;

  /** The {@code slidingwindow.redis} properties of {@code environment}, defaults where unset. */
  static SlidingWindowRedisProperties bind(Environment environment) {
    return Binder.get(environment)
        .bind(PREFIX, SlidingWindowRedisProperties.class)
        .orElseGet(SlidingWindowRedisProperties::new);
  }

  /** Whether any {@code spring.data.redis} property is set in {@code environment}, in any form. */
  static boolean springDataRedisConfigured(Environment environment) {
    return Binder.get(environment)
        .bind("spring.data.redis", Bindable.mapOf(String.class, Object.class))
        .map(map -> !map.isEmpty())
        .orElse(false);
  }

  /** Whether {@code uri}, {@code cluster.nodes} or {@code sentinel.master} is set. */
  boolean namesDeployment() {
    return uri != null || !cluster.getNodes().isEmpty() || sentinel.getMaster() != null;
  }

  public String getUri() {
    return uri;
  }

  public void setUri(String uri) {
    this.uri = uri;
  }

  public Cluster getCluster() {
    return cluster;
  }

  public Sentinel getSentinel() {
    return sentinel;
  }

  public Boolean getApplicationConnection() {
    return applicationConnection;
  }

  public void setApplicationConnection(Boolean applicationConnection) {
    this.applicationConnection = applicationConnection;
  }

  public Duration getHealthTimeout() {
    return healthTimeout;
  }

  public void setHealthTimeout(Duration healthTimeout) {
    this.healthTimeout = healthTimeout;
  }

  public String getKeyPrefix() {
    return keyPrefix;
  }

  public void setKeyPrefix(String keyPrefix) {
    this.keyPrefix = keyPrefix;
  }

  public Duration getCommandTimeout() {
    return commandTimeout;
  }

  public void setCommandTimeout(Duration commandTimeout) {
    this.commandTimeout = commandTimeout;
  }

  public int getRefusalCache() {
    return refusalCache;
  }

  public void setRefusalCache(int refusalCache) {
    this.refusalCache = refusalCache;
  }

  public boolean isBatching() {
    return batching;
  }

  public void setBatching(boolean batching) {
    this.batching = batching;
  }

  public FailurePolicy getOnFailure() {
    return onFailure;
  }

  /** Sets the failure policy; null (an empty value) means the default, {@code local}. */
  public void setOnFailure(FailurePolicy onFailure) {
    this.onFailure = onFailure == null ? FailurePolicy.DEFAULT : onFailure;
  }

  /** Redis Cluster: the seed nodes. */
  public static class Cluster {

    /**
     * Seed node URIs, e.g. {@code redis://127.0.0.1:7000}; the rest of the cluster is discovered.
     */
    private List<String> nodes = new ArrayList<>();

    public List<String> getNodes() {
      return nodes;
    }

    public void setNodes(List<String> nodes) {
      this.nodes = nodes;
    }
  }

  /** Redis Sentinel: the master's name and the sentinels. */
  public static class Sentinel {

    /** The name the sentinels monitor the master under. */
    private String master;

    /** Sentinel URIs, e.g. {@code redis://127.0.0.1:26379}. */
    private List<String> nodes = new ArrayList<>();

    public String getMaster() {
      return master;
    }

    public void setMaster(String master) {
      this.master = master;
    }

    public List<String> getNodes() {
      return nodes;
    }

    public void setNodes(List<String> nodes) {
      this.nodes = nodes;
    }
  }
}
