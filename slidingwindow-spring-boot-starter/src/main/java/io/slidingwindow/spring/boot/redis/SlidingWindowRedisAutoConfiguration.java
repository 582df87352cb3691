package io.slidingwindow.spring.boot.redis;

import io.slidingwindow.FailurePolicy;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.Ticker;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.redis.RedisUris;
import io.slidingwindow.spring.boot.internal.InMemoryBackend;
import io.slidingwindow.spring.boot.internal.SlidingWindowRedisLimiters;
import io.slidingwindow.spring.boot.web.SlidingWindowAutoConfiguration;
import io.slidingwindow.spring.boot.web.SlidingWindowHttpProperties;
import io.slidingwindow.spring.boot.web.SlidingWindowReactiveAutoConfiguration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * Puts every rule's windows in Redis when {@code slidingwindow-redis} is on the class path and
 * Redis is configured: all instances of the service then share each rule's limits. Each rule's keys
 * start with {@code <key-prefix>:<rule name>}. Time comes from the Redis server, so the instances'
 * clocks do not matter.
 *
 * <p>Which Redis, first match wins: a user-defined {@link RedisBackend} bean; the deployment that
 * {@code slidingwindow.redis.uri}, {@code slidingwindow.redis.cluster.nodes} or {@code
 * slidingwindow.redis.sentinel.master} names (a client of its own, Lettuce through {@code
 * slidingwindow-redis-lettuce}, else Jedis through {@code slidingwindow-redis-jedis}); the
 * application's Spring Data Redis {@link RedisConnectionFactory} when some {@code
 * spring.data.redis} property is set (or {@code slidingwindow.redis.application-connection=true}):
 * the factory's own Lettuce client or Jedis pool, with its hosts, Sentinel or Cluster, TLS and
 * credentials, and no second client (see {@code ApplicationRedis}). The choice is logged at INFO,
 * passwords masked. Redis that is configured but cannot be used (no client adapter on the class
 * path, a connection factory of another kind) stops the start with a message that says what to do;
 * when no Redis is configured, {@code SlidingWindowBackendReport} logs why the limits stay in
 * memory.
 *
 * <p>Backs off for a user-defined {@link RateLimiterFactory}. Runs after Spring Boot's Redis
 * auto-configuration and before {@link SlidingWindowAutoConfiguration}, whose in-memory factory
 * then backs off in turn.
 */
@AutoConfiguration(
    before = {SlidingWindowAutoConfiguration.class, SlidingWindowReactiveAutoConfiguration.class},
    afterName = {
      // Spring Boot 3.5, then Spring Boot 4
      "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration",
      "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration"
    })
@ConditionalOnClass(RedisRateLimiter.class)
@EnableConfigurationProperties({
  SlidingWindowRedisProperties.class,
  SlidingWindowHttpProperties.class
})
public class SlidingWindowRedisAutoConfiguration {

  private static final Logger LOG =
      LoggerFactory.getLogger(SlidingWindowRedisAutoConfiguration.class);

  /**
   * A backend on the application's Spring Data Redis connection factory, closed with the
   * application context (the factory's client and pool stay the application's).
   */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnClass(RedisConnectionFactory.class)
  @Conditional(UseApplicationConnection.class)
  static class ApplicationConnectionConfiguration {

    @Bean
    @ConditionalOnMissingBean(RedisBackend.class)
    @ConditionalOnBean(RedisConnectionFactory.class)
    ApplicationRedisConnection slidingWindowApplicationRedisConnection(
        RedisConnectionFactory factory, ResourceLoader resources) {
      ApplicationRedis.Connected connected =
          ApplicationRedis.connect(factory, resources.getClassLoader());
      LOG.info(
          "slidingwindow: rate limits in Redis through the application's spring.data.redis"
              + " connection ({}) over {}",
          connected.description(),
          connected.client());
      int phase = factory instanceof SmartLifecycle lifecycle ? lifecycle.getPhase() : 0;
      return new ApplicationRedisConnection(connected.backend(), phase);
    }

    /** Closed by its {@code ApplicationRedisConnection}. */
    @Bean(destroyMethod = "")
    @ConditionalOnBean(ApplicationRedisConnection.class)
    public RedisBackend slidingWindowRedisBackend(ApplicationRedisConnection connection) {
      return connection.backend();
    }
  }

  /**
   * The connection, closed with the application context: a Lettuce client of its own when {@code
   * slidingwindow-redis-lettuce} is on the class path, else a Jedis client through {@code
   * slidingwindow-redis-jedis}, whose connect and socket timeouts are the command timeout.
   *
   * @throws IllegalArgumentException naming the properties if they name no deployment or more than
   *     one
   * @throws IllegalStateException saying what to add if neither client adapter is on the class path
   */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  @Conditional(RedisConfigured.class)
  public RedisBackend slidingWindowRedisBackend(
      SlidingWindowRedisProperties properties, ResourceLoader resources) {
    String uri = properties.getUri();
    List<String> clusterNodes = properties.getCluster().getNodes();
    String master = properties.getSentinel().getMaster();
    List<String> sentinelNodes = properties.getSentinel().getNodes();
    int chosen =
        (uri != null ? 1 : 0) + (clusterNodes.isEmpty() ? 0 : 1) + (master != null ? 1 : 0);
    if (chosen != 1) {
      throw new IllegalArgumentException(
          SlidingWindowRedisProperties.PREFIX
              + ": set exactly one of uri, cluster.nodes and sentinel.master, found "
              + chosen);
    }
    if (master != null && sentinelNodes.isEmpty()) {
      throw new IllegalArgumentException(
          SlidingWindowRedisProperties.PREFIX
              + ".sentinel.nodes must list the sentinels of master "
              + master);
    }
    ClassLoader loader = resources.getClassLoader();
    String client;
    RedisBackend backend;
    if (ClassUtils.isPresent(ApplicationRedis.LETTUCE_ADAPTER, loader)) {
      client = "Lettuce";
      backend =
          ApplicationRedisClients.Lettuce.deployment(uri, clusterNodes, master, sentinelNodes);
    } else if (ClassUtils.isPresent(ApplicationRedis.JEDIS_ADAPTER, loader)) {
      client = "Jedis";
      backend =
          ApplicationRedisClients.Jedis.deployment(
              uri, clusterNodes, master, sentinelNodes, properties.getCommandTimeout());
    } else {
      throw new IllegalStateException(
          "slidingwindow: "
              + SlidingWindowRedisProperties.PREFIX
              + " names a Redis deployment, but no Redis client adapter is on the class path;"
              + " add io.slidingwindow:slidingwindow-redis-lettuce (or"
              + " slidingwindow-redis-jedis)");
    }
    if (uri != null) {
      LOG.info(
          "slidingwindow: rate limits in Redis through slidingwindow.redis.uri {} over {}",
          RedisUris.mask(uri),
          client);
    } else if (!clusterNodes.isEmpty()) {
      LOG.info(
          "slidingwindow: rate limits in Redis through slidingwindow.redis.cluster.nodes {} over {}",
          RedisUris.mask(clusterNodes.toString()),
          client);
    } else {
      LOG.info(
          "slidingwindow: rate limits in Redis through slidingwindow.redis.sentinel master {} via"
              + " {} over {}",
          master,
          RedisUris.mask(sentinelNodes.toString()),
          client);
    }
    return backend;
  }

  /**
   * The Redis limiters built so far, for the health indicator. Package-private, as the type is
   * internal: it only tracks what the factory below builds, so there is nothing to replace.
   */
  @Bean
  @ConditionalOnBean(RedisBackend.class)
  SlidingWindowRedisLimiters slidingWindowRedisLimiters() {
    return new SlidingWindowRedisLimiters();
  }

  /**
   * A Redis limiter per rule, with the configured failure policy. Package-private, as it takes the
   * internal limiter tracker; an application replaces it with a {@link RateLimiterFactory} bean of
   * its own.
   */
  @Bean
  @ConditionalOnMissingBean
  @ConditionalOnBean(RedisBackend.class)
  RateLimiterFactory slidingWindowRedisRateLimiterFactory(
      RedisBackend backend,
      SlidingWindowRedisLimiters built,
      SlidingWindowRedisProperties redis,
      SlidingWindowHttpProperties http,
      ObjectProvider<Ticker> ticker) {
    if (redis.getRefusalCache() < 0 || redis.getRefusalCache() > 1 << 20) {
      throw new IllegalArgumentException(
          SlidingWindowRedisProperties.PREFIX
              + ".refusal-cache must be between 0 and 2^20, was "
              + redis.getRefusalCache());
    }
    RateLimiterFactory local = InMemoryBackend.factory(http, ticker.getIfAvailable(Ticker::system));
    return new RateLimiterFactory() {
      @Override
      public KeyedRateLimiter<String> create(
          String ruleName, List<Limit> limits, boolean countRefusedAttempts) {
        return create(ruleName, limits, countRefusedAttempts, null);
      }

      @Override
      public KeyedRateLimiter<String> create(
          String ruleName,
          List<Limit> limits,
          boolean countRefusedAttempts,
          PlanResolver<String> plans) {
        FailurePolicy policy = redis.getOnFailure();
        RedisRateLimiter.Builder builder =
            RedisRateLimiter.builder(backend)
                .keyPrefix(RuleKeyPrefix.of(redis.getKeyPrefix(), ruleName))
                .limits(limits)
                .countRefusedAttempts(countRefusedAttempts)
                .commandTimeout(redis.getCommandTimeout())
                .refusalCache(redis.getRefusalCache())
                .batching(redis.isBatching())
                .failurePolicy(policy);
        if (policy == FailurePolicy.LOCAL) {
          // The starter's in-memory limiter, with its key bound and clock.
          builder.fallback(local.create(ruleName, limits, countRefusedAttempts, plans));
        }
        return built.add(builder.build(plans));
      }

      @Override
      public void release(KeyedRateLimiter<String> limiter) {
        built.remove(limiter);
      }
    };
  }

  /** True when any of the properties that name a Redis deployment is set, in any form. */
  static final class RedisConfigured extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      return SlidingWindowRedisProperties.bind(context.getEnvironment()).namesDeployment()
          ? ConditionOutcome.match("a Redis deployment is configured")
          : ConditionOutcome.noMatch(
              "no slidingwindow.redis uri, cluster.nodes or sentinel.master");
    }
  }

  /**
   * True when {@code slidingwindow.redis} names no deployment and the application's connection is
   * wanted: {@code application-connection} is true, or unset while some {@code spring.data.redis}
   * property is set.
   */
  static final class UseApplicationConnection extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(
        ConditionContext context, AnnotatedTypeMetadata metadata) {
      SlidingWindowRedisProperties properties =
          SlidingWindowRedisProperties.bind(context.getEnvironment());
      if (properties.namesDeployment()) {
        return ConditionOutcome.noMatch("slidingwindow.redis names a deployment of its own");
      }
      Boolean wanted = properties.getApplicationConnection();
      if (wanted != null) {
        return wanted
            ? ConditionOutcome.match("slidingwindow.redis.application-connection is true")
            : ConditionOutcome.noMatch("slidingwindow.redis.application-connection is false");
      }
      return SlidingWindowRedisProperties.springDataRedisConfigured(context.getEnvironment())
          ? ConditionOutcome.match("spring.data.redis is configured")
          : ConditionOutcome.noMatch("no spring.data.redis property is set");
    }
  }
}
