package io.slidingwindow.spring.boot.redis;

import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.redis.RedisUris;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Says once at start-up where the rate limits are kept when that is not a Redis deployment the
 * starter configured (it logs those itself): in memory, and why, at WARN when Redis settings were
 * found but could not be used; or the application's own {@code RedisBackend} or {@code
 * RateLimiterFactory} bean. Logs nothing when the starter built no limiter factory.
 */
final class SlidingWindowBackendReport implements SmartInitializingSingleton {

  private static final Logger LOG = LoggerFactory.getLogger(SlidingWindowBackendReport.class);

  private static final String REDIS_BACKEND = "io.slidingwindow.redis.RedisBackend";
  private static final String CONNECTION_FACTORY =
      "org.springframework.data.redis.connection.RedisConnectionFactory";

  private final ConfigurableListableBeanFactory beans;
  private final Environment environment;

  SlidingWindowBackendReport(ConfigurableListableBeanFactory beans, Environment environment) {
    this.beans = beans;
    this.environment = environment;
  }

  @Override
  public void afterSingletonsInstantiated() {
    String[] factories = beans.getBeanNamesForType(RateLimiterFactory.class, false, false);
    if (factories.length == 0) {
      return;
    }
    String factory = factories[0];
    if (!factory.equals("slidingWindowRateLimiterFactory")
        && !factory.equals("slidingWindowRedisRateLimiterFactory")) {
      LOG.info(
          "slidingwindow: rate limits through the application's RateLimiterFactory bean '{}'",
          factory);
      return;
    }
    String backend = beanOf(REDIS_BACKEND);
    if (backend != null) {
      if (!backend.equals("slidingWindowRedisBackend")) {
        LOG.info(
            "slidingwindow: rate limits in Redis through the application's RedisBackend bean '{}' ({})",
            backend,
            RedisUris.mask(String.valueOf(beans.getBean(backend))));
      }
      return;
    }
    inMemory();
  }

  private void inMemory() {
    SlidingWindowRedisProperties redis = SlidingWindowRedisProperties.bind(environment);
    boolean springDataRedis = SlidingWindowRedisProperties.springDataRedisConfigured(environment);
    String connectionFactory = beanOf(CONNECTION_FACTORY);
    if (!ClassUtils.isPresent(REDIS_BACKEND, getClass().getClassLoader())) {
      if (redis.namesDeployment() || springDataRedis) {
        LOG.warn(
            "slidingwindow: rate limits in memory: {} is configured, but no Redis client adapter"
                + " is on the class path; add io.slidingwindow:slidingwindow-redis-lettuce (or"
                + " slidingwindow-redis-jedis) to share the limits through Redis",
            redis.namesDeployment() ? "slidingwindow.redis" : "spring.data.redis");
      } else {
        LOG.info(
            "slidingwindow: rate limits in memory: slidingwindow-redis is not on the class path");
      }
      return;
    }
    if (Boolean.FALSE.equals(redis.getApplicationConnection())) {
      LOG.info(
          "slidingwindow: rate limits in memory: slidingwindow.redis.application-connection is false"
              + " and slidingwindow.redis names no uri, cluster.nodes or sentinel.master");
    } else if (springDataRedis) {
      LOG.warn(
          "slidingwindow: rate limits in memory: spring.data.redis is set, but the application has no"
              + " Spring Data Redis connection factory (add spring-boot-starter-data-redis) and"
              + " slidingwindow.redis names no uri, cluster.nodes or sentinel.master");
    } else if (connectionFactory != null) {
      LOG.info(
          "slidingwindow: rate limits in memory: no slidingwindow.redis uri, cluster.nodes or"
              + " sentinel.master, and no spring.data.redis property is set; set"
              + " slidingwindow.redis.application-connection=true to use the application's Redis"
              + " connection factory");
    } else {
      LOG.info(
          "slidingwindow: rate limits in memory: no slidingwindow.redis uri, cluster.nodes or"
              + " sentinel.master and no spring.data.redis connection; each instance limits on its"
              + " own");
    }
  }

  /** The name of the first bean of the class named {@code className}, or null. */
  private String beanOf(String className) {
    if (!ClassUtils.isPresent(className, getClass().getClassLoader())) {
      return null;
    }
    String[] names =
        beans.getBeanNamesForType(
            ClassUtils.resolveClassName(className, getClass().getClassLoader()), false, false);
    return names.length == 0 ? null : names[0];
  }
}
