package io.slidingwindow.spring.boot.dashboard;

import io.slidingwindow.dashboard.DecisionRecorder;
import io.slidingwindow.spring.boot.internal.RulesInService;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * The {@code slidingwindow} actuator endpoint ({@link SlidingWindowEndpoint}), its dashboard page
 * over HTTP ({@link SlidingWindowPageWebExtension}, polling the feed at the endpoint's mapped path)
 * and the listener that records for it ({@link DashboardRateLimitListener}, told by every enforcer
 * as any {@code RateLimitListener} bean is), when the actuator is on the class path and the
 * endpoint is available by Spring Boot's rules: enabled ({@code
 * management.endpoint.slidingwindow.access}) and exposed ({@code
 * management.endpoints.web.exposure.include} or its JMX twin). Nothing is recorded while it is not.
 */
@AutoConfiguration
@ConditionalOnClass({Endpoint.class, ConditionalOnAvailableEndpoint.class})
@ConditionalOnAvailableEndpoint(endpoint = SlidingWindowEndpoint.class)
public class SlidingWindowEndpointAutoConfiguration {

  private static final String REDIS_BACKEND = "io.slidingwindow.redis.RedisBackend";

  @Bean
  @ConditionalOnMissingBean
  public DashboardRateLimitListener slidingwindowDashboardListener(
      Environment environment, ListableBeanFactory beans) {
    String domain = environment.getProperty("spring.application.name", "application");
    return new DashboardRateLimitListener(domain, DecisionRecorder.system(), backend(beans));
  }

  /** Tells the listener of the rules a reload takes out of service, so the feed drops them. */
  @Bean
  static SmartInitializingSingleton slidingwindowDashboardReloads(
      ObjectProvider<DashboardRateLimitListener> dashboard, ObjectProvider<RulesInService> rules) {
    return () ->
        dashboard.ifAvailable(
            listener -> rules.orderedStream().forEach(r -> r.onRemoved(listener::forgetRules)));
  }

  @Bean
  @ConditionalOnMissingBean
  public SlidingWindowEndpoint slidingwindowEndpoint(DashboardRateLimitListener dashboard) {
    return new SlidingWindowEndpoint(dashboard);
  }

  /**
   * The endpoint's web extension; package-private, as it reads the rules through internal types.
   */
  @Bean
  @ConditionalOnMissingBean
  SlidingWindowPageWebExtension slidingwindowPageWebExtension(
      Environment environment, ObjectProvider<RulesInService> rules) {
    String path =
        environment.getProperty(
            "management.endpoints.web.path-mapping." + SlidingWindowEndpoint.ID,
            SlidingWindowEndpoint.ID);
    return new SlidingWindowPageWebExtension(
        SlidingWindowPageWebExtension.feedUrl(path),
        new SlidingWindowQuotas(rules::orderedStream),
        new SlidingWindowPlans(rules::orderedStream));
  }

  /** {@code "redis"} if the limits are kept in Redis, else {@code "memory"}. */
  private static String backend(ListableBeanFactory beans) {
    ClassLoader loader = SlidingWindowEndpointAutoConfiguration.class.getClassLoader();
    if (!ClassUtils.isPresent(REDIS_BACKEND, loader)) {
      return "memory";
    }
    Class<?> type = ClassUtils.resolveClassName(REDIS_BACKEND, loader);
    return beans.getBeanNamesForType(type, false, false).length > 0 ? "redis" : "memory";
  }
}
