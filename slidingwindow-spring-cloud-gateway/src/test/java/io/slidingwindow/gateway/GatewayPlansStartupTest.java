package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.Plan;
import io.slidingwindow.PlanResolver;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.cloud.gateway.config.GatewayProperties;
import org.springframework.context.annotation.Configuration;

/**
 * Routes written in the gateway's properties with bad plans stop start-up, naming the route and the
 * argument: each check of the route's plans, and routes whose plans are good start.
 */
class GatewayPlansStartupTest {

  private static final String ROUTE = "spring.cloud.gateway.server.webflux.routes[0].";
  private static final String ARGS = ROUTE + "filters[0].args.sliding-window-rate-limiter.";

  /** Binds the gateway's properties, as the gateway's own configuration does. */
  @Configuration(proxyBeanMethods = false)
  @EnableConfigurationProperties(GatewayProperties.class)
  static class GatewayPropertiesOnly {}

  private final ReactiveWebApplicationContextRunner runner =
      new ReactiveWebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(SlidingWindowGatewayAutoConfiguration.class))
          .withUserConfiguration(GatewayPropertiesOnly.class);

  /** Route "api" with 2 per 10 s, plans free (5 per 10 s) and pro, and {@code more}. */
  private static String[] route(String... more) {
    List<String> values =
        new ArrayList<>(
            List.of(
                ROUTE + "id=api",
                ROUTE + "uri=http://127.0.0.1:9",
                ROUTE + "predicates[0]=Path=/api/**",
                ROUTE + "filters[0].name=RequestRateLimiter",
                ARGS + "limits[0].permits=2",
                ARGS + "limits[0].window=10s",
                ARGS + "plans.free.limits[0].permits=5",
                ARGS + "plans.free.limits[0].window=10s",
                ARGS + "plans.pro.limits[0].permits=20",
                ARGS + "plans.pro.limits[0].window=10s",
                ARGS + "plan-keys.free[0]=header:x-api-key:k1",
                ARGS + "plan-keys.pro[0]=header:x-api-key:k2"));
    values.addAll(List.of(more));
    return values.toArray(String[]::new);
  }

  private void assertStopsWith(String message, String... more) {
    runner
        .withPropertyValues(route(more))
        .run(context -> assertThat(context).getFailure().hasStackTraceContaining(message));
  }

  @Test
  void goodPlans_start() {
    runner
        .withPropertyValues(route(ARGS + "plan-resolver=tenants"))
        .withBean("tenants", PlanResolver.class, () -> key -> Plan.of("gold", Limit.parse("7/10s")))
        .run(context -> assertThat(context).hasNotFailed());
  }

  @Test
  void planKeysOfAnUnknownPlan_stopStartUp() {
    assertStopsWith(
        "route api: sliding-window-rate-limiter.plan-keys.gold: no plan named 'gold' in"
            + " sliding-window-rate-limiter.plans [free, pro]",
        ARGS + "plan-keys.gold[0]=header:x-api-key:k3");
  }

  @Test
  void planWithoutLimits_stopsStartUp() {
    assertStopsWith(
        "route api: sliding-window-rate-limiter.plans.team.limits: a plan needs at least one limit",
        ARGS + "plans.team.limits=");
  }

  @Test
  void planWithABadLimit_stopsStartUp() {
    assertStopsWith(
        "route api: sliding-window-rate-limiter.plans.pro.limits[0].precision: ",
        ARGS + "plans.pro.limits[0].precision=20s");
  }

  @Test
  void keyOnTwoPlans_stopsStartUp() {
    assertStopsWith("is on plan 'free' already", ARGS + "plan-keys.pro[1]=header:x-api-key:k1");
  }

  @Test
  void resolverBeanThatDoesNotExist_stopsStartUp() {
    assertStopsWith(
        "route api: sliding-window-rate-limiter.plan-resolver: no PlanResolver bean named"
            + " 'tenants'",
        ARGS + "plan-resolver=tenants");
  }

  @Test
  void defaultFiltersWithBadPlans_stopStartUp() {
    String filter = "spring.cloud.gateway.server.webflux.default-filters[0].";
    String args = filter + "args.sliding-window-rate-limiter.";
    runner
        .withPropertyValues(
            filter + "name=RequestRateLimiter",
            args + "limits[0].permits=2",
            args + "limits[0].window=10s",
            args + "plan-keys.free[0]=k")
        .run(
            context ->
                assertThat(context)
                    .getFailure()
                    .hasStackTraceContaining(
                        "route defaultFilters: sliding-window-rate-limiter.plan-keys.free: no plan"
                            + " named 'free'"));
  }
}
