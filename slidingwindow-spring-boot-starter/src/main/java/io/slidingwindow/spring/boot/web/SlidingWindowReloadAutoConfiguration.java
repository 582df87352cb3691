package io.slidingwindow.spring.boot.web;

import io.slidingwindow.spring.RateLimit;
import java.lang.System.Logger.Level;
import java.util.Locale;
import java.util.Set;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.cloud.context.environment.EnvironmentChangeEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Reloads the rules of {@code slidingwindow.http.*} when Spring Cloud tells of a configuration
 * change ({@link EnvironmentChangeEvent}, as after {@code /actuator/refresh} or a Spring Cloud
 * Config push) that touches a key under {@code slidingwindow.http}: the properties are bound again
 * from the environment and each web stack's {@code ReloadableRules} rebuilt, keeping the counts of
 * the rules whose key and limits did not change. A new configuration that is invalid is logged at
 * ERROR with the property at fault, and the rules in service stay.
 *
 * <p>Reloaded: the rules and everything in them, {@code dry-run}, {@code rate-limit-headers} and
 * {@code refusal}, for the rules; a configuration that gives a rule the name of a {@link RateLimit}
 * method is refused like an invalid one. Read only at start-up: {@code enabled}, the backend and
 * its settings, {@code trusted-proxies}, {@code ipv6-prefix-length}, {@code path-firewall}, {@code
 * filter-order} and {@link RateLimit} annotations. Only with spring-cloud-context on the class
 * path.
 */
@AutoConfiguration(
    after = {SlidingWindowAutoConfiguration.class, SlidingWindowReactiveAutoConfiguration.class})
@ConditionalOnClass(name = "org.springframework.cloud.context.environment.EnvironmentChangeEvent")
public class SlidingWindowReloadAutoConfiguration {

  private static final System.Logger LOG =
      System.getLogger(SlidingWindowReloadAutoConfiguration.class.getName());

  /** Rebuilds the rules after a change under {@code slidingwindow.http}. */
  @Bean
  ApplicationListener<EnvironmentChangeEvent> slidingWindowRulesReload(
      ConfigurableEnvironment environment, ObjectProvider<ReloadableRules<?>> rules) {
    return event -> {
      if (touchesRules(event.getKeys())) {
        reload(environment, rules);
      }
    };
  }

  /** Whether one of {@code keys}, in any relaxed spelling, is under {@code slidingwindow.http}. */
  static boolean touchesRules(Set<String> keys) {
    for (String key : keys) {
      String dotted = key.toLowerCase(Locale.ROOT).replace('_', '.').replace("-", "");
      if (dotted.startsWith(SlidingWindowHttpProperties.PREFIX)) {
        return true;
      }
    }
    return false;
  }

  private static void reload(
      ConfigurableEnvironment environment, ObjectProvider<ReloadableRules<?>> rules) {
    try {
      SlidingWindowHttpProperties properties =
          Binder.get(environment)
              .bindOrCreate(SlidingWindowHttpProperties.PREFIX, SlidingWindowHttpProperties.class);
      rules.orderedStream().forEach(reloadable -> reloadable.reload(properties));
      LOG.log(
          Level.INFO,
          "slidingwindow.http rules reloaded: {0}",
          String.join(", ", properties.getRules().keySet()));
    } catch (RuntimeException e) {
      LOG.log(
          Level.ERROR,
          "slidingwindow.http rules not reloaded, the rules in service stay: " + e.getMessage(),
          e);
    }
  }
}
