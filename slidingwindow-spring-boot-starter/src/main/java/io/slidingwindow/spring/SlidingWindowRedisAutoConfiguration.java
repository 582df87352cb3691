package io.slidingwindow.spring;

import io.slidingwindow.Ticker;
import io.slidingwindow.redis.FailurePolicy;
import io.slidingwindow.redis.RedisBackend;
import io.slidingwindow.redis.RedisRateLimiter;
import io.slidingwindow.servlet.RateLimiterFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Puts every rule's windows in Redis when {@code slidingwindow.redis.uri}, {@code
 * slidingwindow.redis.cluster.nodes} or {@code slidingwindow.redis.sentinel.master} is set and
 * {@code slidingwindow-redis} is on the class path: all instances of the service then share each
 * rule's limits. Each rule's keys start with {@code <key-prefix>:<rule name>}. Time comes from the
 * Redis server, so the instances' clocks do not matter.
 *
 * <p>Backs off for a user-defined {@link RedisBackend} or {@link RateLimiterFactory}. Runs before
 * {@link SlidingWindowAutoConfiguration}, whose in-memory factory then backs off in turn.
 */
@AutoConfiguration(before = SlidingWindowAutoConfiguration.class)
@ConditionalOnClass(RedisRateLimiter.class)
@Conditional(SlidingWindowRedisAutoConfiguration.RedisConfigured.class)
@EnableConfigurationProperties({SlidingWindowRedisProperties.class, SlidingWindowHttpProperties.class})
public class SlidingWindowRedisAutoConfiguration {

  /** The connection, closed with the application context. */
  @Bean(destroyMethod = "close")
  @ConditionalOnMissingBean
  public RedisBackend slidingWindowRedisBackend(SlidingWindowRedisProperties properties) {
    String uri = properties.getUri();
    boolean cluster = !properties.getCluster().getNodes().isEmpty();
    String master = properties.getSentinel().getMaster();
    int chosen = (uri != null ? 1 : 0) + (cluster ? 1 : 0) + (master != null ? 1 : 0);
    if (chosen != 1) {
      throw new IllegalArgumentException(
          SlidingWindowRedisProperties.PREFIX
              + ": set exactly one of uri, cluster.nodes and sentinel.master, found "
              + chosen);
    }
    if (uri != null) {
      return RedisBackend.standalone(uri);
    }
    if (cluster) {
      return RedisBackend.cluster(properties.getCluster().getNodes());
    }
    if (properties.getSentinel().getNodes().isEmpty()) {
      throw new IllegalArgumentException(
          SlidingWindowRedisProperties.PREFIX + ".sentinel.nodes must list the sentinels of master " + master);
    }
    return RedisBackend.sentinel(properties.getSentinel().getNodes(), master);
  }

  /** A Redis limiter per rule, with the configured failure policy. */
  @Bean
  @ConditionalOnMissingBean
  public RateLimiterFactory slidingWindowRedisRateLimiterFactory(
      RedisBackend backend,
      SlidingWindowRedisProperties redis,
      SlidingWindowHttpProperties http,
      ObjectProvider<Ticker> ticker) {
    if (redis.getRefusalCache() < 0 || redis.getRefusalCache() > 1 << 20) {
      throw new IllegalArgumentException(
          SlidingWindowRedisProperties.PREFIX
              + ".refusal-cache must be between 0 and 2^20, was "
              + redis.getRefusalCache());
    }
    RateLimiterFactory local =
        SlidingWindowAutoConfiguration.inMemoryFactory(http, ticker.getIfAvailable(Ticker::system));
    return (ruleName, limits, countRefusedAttempts) -> {
      FailurePolicy policy =
          switch (redis.getOnFailure()) {
            case LOCAL -> FailurePolicy.fallbackTo(local.create(ruleName, limits, countRefusedAttempts));
            case ALLOW -> FailurePolicy.failOpen();
            case REFUSE -> FailurePolicy.failClosed();
          };
      return RedisRateLimiter.builder(backend)
          .keyPrefix(redis.getKeyPrefix() + ":" + ruleName.replace('{', '(').replace('}', ')'))
          .limits(limits)
          .countRefusedAttempts(countRefusedAttempts)
          .commandTimeout(redis.getCommandTimeout())
          .refusalCache(redis.getRefusalCache())
          .batching(redis.isBatching())
          .failurePolicy(policy)
          .build();
    };
  }

  /** True when any of the properties that name a Redis deployment is set, in any form. */
  static final class RedisConfigured extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
      SlidingWindowRedisProperties properties =
          Binder.get(context.getEnvironment())
              .bind(SlidingWindowRedisProperties.PREFIX, SlidingWindowRedisProperties.class)
              .orElseGet(SlidingWindowRedisProperties::new);
      boolean configured =
          properties.getUri() != null
              || !properties.getCluster().getNodes().isEmpty()
              || properties.getSentinel().getMaster() != null;
      return configured
          ? ConditionOutcome.match("a Redis deployment is configured")
          : ConditionOutcome.noMatch("no slidingwindow.redis uri, cluster.nodes or sentinel.master");
    }
  }
}
