package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import io.slidingwindow.http.RateLimiterFactory;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.ApplicationContextAssertProvider;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;

/**
 * The plans of {@code slidingwindow.http.rules.NAME}: bound on either web stack into the rule's
 * limiter, and a bad one stops start-up with a message naming the property.
 */
class RulePlansStartupTest {

  private static final String RULE = "slidingwindow.http.rules.r";

  private static final String[] PLANS = {
    RULE + ".key=header:X-Api-Key",
    RULE + ".limits[0].permits=2",
    RULE + ".limits[0].window=1m",
    RULE + ".plans.free.limits[0].permits=5",
    RULE + ".plans.free.limits[0].window=1m",
    RULE + ".plans.pro.limits[0].permits=20",
    RULE + ".plans.pro.limits[0].window=1m",
    RULE + ".plans.pro.limits[1].permits=100",
    RULE + ".plans.pro.limits[1].window=1h",
    RULE + ".plan-keys.free[0]=custom:k1",
    RULE + ".plan-keys.pro[0]=custom:k2",
    RULE + ".plan-keys.pro[1]=principal:alice",
  };

  private static List<AbstractApplicationContextRunner<?, ?, ?>> runners() {
    return List.of(
        new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SlidingWindowAutoConfiguration.class)),
        new ReactiveWebApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(SlidingWindowReactiveAutoConfiguration.class)));
  }

  private static KeyedRateLimiter<String> limiter(ApplicationContext context) {
    ReloadableRules<?> rules = context.getBean(ReloadableRules.class);
    return rules.limiter("r").orElseThrow();
  }

  private static int granted(KeyedRateLimiter<String> limiter, String key, int calls) {
    int granted = 0;
    for (int i = 0; i < calls; i++) {
      granted += limiter.decide(key, 1).allowed() ? 1 : 0;
    }
    return granted;
  }

  @Test
  void plans_boundOnBothStacks_giveEachListedKeyItsPlansLimits() {
    for (AbstractApplicationContextRunner<?, ?, ?> runner : runners()) {
      runner
          .withPropertyValues(PLANS)
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                KeyedRateLimiter<String> limiter = limiter(context);
                assertThat(granted(limiter, "custom:k1", 8)).isEqualTo(5);
                assertThat(granted(limiter, "custom:k2", 25)).isEqualTo(20);
                assertThat(granted(limiter, "principal:alice", 25)).isEqualTo(20);
                assertThat(granted(limiter, "ip:192.0.2.1", 5)).as("on no plan").isEqualTo(2);
                assertThat(limiter.peek("custom:k2").plan()).hasValue("pro");
                assertThat(limiter.peek("custom:k2").limits()).hasSize(2);
              });
    }
  }

  @Test
  void properties_bindPlansPlanKeysAndPlanResolver() {
    new WebApplicationContextRunner()
        .withConfiguration(AutoConfigurations.of(SlidingWindowAutoConfiguration.class))
        .withPropertyValues(PLANS)
        .withPropertyValues(RULE + ".plan-resolver=myPlans")
        .withBean("myPlans", PlanResolver.class, () -> key -> null)
        .run(
            context -> {
              SlidingWindowHttpProperties.Rule rule =
                  context.getBean(SlidingWindowHttpProperties.class).getRules().get("r");
              assertThat(rule.getPlans()).containsOnlyKeys("free", "pro");
              assertThat(rule.getPlans().get("pro").getLimits()).hasSize(2);
              assertThat(rule.getPlans().get("pro").getLimits().get(1).getPermits()).isEqualTo(100);
              assertThat(rule.getPlanKeys().get("pro"))
                  .containsExactly("custom:k2", "principal:alice");
              assertThat(rule.getPlanResolver()).isEqualTo("myPlans");
            });
  }

  @Test
  void planResolverBean_isAskedFirst_thenPlanKeys() {
    Plan gold = Plan.of("gold", Limit.parse("3/1m"));
    List<String> asked = new ArrayList<>();
    PlanResolver<String> mine =
        key -> {
          asked.add(key);
          return key.equals("custom:k1") || key.equals("custom:k9") ? gold : null;
        };
    for (AbstractApplicationContextRunner<?, ?, ?> runner : runners()) {
      asked.clear();
      runner
          .withPropertyValues(PLANS)
          .withPropertyValues(RULE + ".plan-resolver=myPlans")
          .withBean("myPlans", PlanResolver.class, () -> mine)
          .run(
              context -> {
                KeyedRateLimiter<String> limiter = limiter(context);
                assertThat(granted(limiter, "custom:k1", 5)).as("the bean wins").isEqualTo(3);
                assertThat(granted(limiter, "custom:k9", 5)).isEqualTo(3);
                assertThat(granted(limiter, "custom:k2", 25)).as("plan-keys").isEqualTo(20);
                assertThat(asked).contains("custom:k1", "custom:k9", "custom:k2");
              });
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        ".plan-keys.gold[0]=custom:k3 | .plan-keys.gold: no plan named 'gold' in "
            + RULE
            + ".plans",
        ".plans.free.limits[0].permits=0 | .plans.free.limits[0].permits: permits must be positive",
        ".plans.basic.limits= | .plans.basic.limits: a plan needs at least one limit",
        ".plan-keys.pro[2]=custom:k1 | .plan-keys.pro: key 'custom:k1' is on plan 'free' already",
        ".plan-resolver=noSuchBean | .plan-resolver: no PlanResolver bean named 'noSuchBean'",
      })
  void badPlan_failsAtStartupNamingTheProperty(String property, String message) {
    for (AbstractApplicationContextRunner<?, ?, ?> runner : runners()) {
      runner
          .withPropertyValues(PLANS)
          .withPropertyValues(RULE + property.strip())
          .run(
              context -> {
                assertThat(context).hasFailed();
                assertThat(propertyMessage(context)).startsWith(RULE).contains(message.strip());
              });
    }
  }

  @Test
  void planBelowTheRulesCost_failsAtStartupNamingTheLimit() {
    for (AbstractApplicationContextRunner<?, ?, ?> runner : runners()) {
      runner
          .withPropertyValues(PLANS)
          .withPropertyValues(
              RULE + ".cost=2",
              RULE + ".plans.tiny.limits[0].permits=1",
              RULE + ".plans.tiny.limits[0].window=1m")
          .run(
              context -> {
                assertThat(context).hasFailed();
                assertThat(propertyMessage(context))
                    .startsWith(RULE)
                    .contains(
                        ".plans.tiny.limits[0].permits: a plan's limit must hold the rule's cost"
                            + " of 2 permits, was 1");
              });
      runner
          .withPropertyValues(PLANS)
          .withPropertyValues(RULE + ".cost=2")
          .run(context -> assertThat(context).as("every plan holds 2").hasNotFailed());
    }
  }

  @Test
  void backendWithoutPlans_failsAtStartupNamingThePlansProperty() {
    RateLimiterFactory noPlans =
        (name, limits, countRefused) -> RateLimiterFactory.inMemory().create(name, limits, false);
    for (AbstractApplicationContextRunner<?, ?, ?> runner : runners()) {
      runner
          .withPropertyValues(PLANS)
          .withBean(RateLimiterFactory.class, () -> noPlans)
          .run(
              context -> {
                assertThat(context).hasFailed();
                assertThat(propertyMessage(context))
                    .startsWith(RULE + ".plans: ")
                    .contains("cannot give keys plans (rule r)");
              });
    }
  }

  /** The message of the first cause that names a property of the starter. */
  private static String propertyMessage(ApplicationContextAssertProvider<?> context) {
    Throwable failure = context.getStartupFailure();
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause.getMessage() != null && cause.getMessage().startsWith("slidingwindow.")) {
        return cause.getMessage();
      }
    }
    return String.valueOf(failure);
  }
}
