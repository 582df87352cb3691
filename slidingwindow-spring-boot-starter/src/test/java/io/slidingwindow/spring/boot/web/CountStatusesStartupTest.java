package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FailingLimiter;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * A bad {@code count-statuses} stops start-up on either web stack naming the property and the
 * value, and so does a backend that cannot give permits back, naming the rule.
 */
class CountStatusesStartupTest {

  private static final String RULE = "slidingwindow.http.rules.logins";

  private static List<AbstractApplicationContextRunner<?, ?, ?>> runners() {
    return List.of(
        new WebApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(SlidingWindowAutoConfiguration.class)),
        new ReactiveWebApplicationContextRunner()
            .withConfiguration(
                AutoConfigurations.of(SlidingWindowReactiveAutoConfiguration.class)));
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "count-statuses=600 | .count-statuses[0] must be a status (401) or a range of statuses"
            + " (400-599); a status is from 100 to 599, was '600'",
        "count-statuses=401,4xx | .count-statuses[1] must be a status (401) or a range of statuses"
            + " (400-599); a status is three digits, was '4xx'",
        "count-statuses=599-400 | .count-statuses[0] must be a status (401) or a range of"
            + " statuses (400-599); a range goes from low to high, was '599-400'",
      })
  void badCountStatuses_failAtStartupNamingThePropertyAndValue(String property, String message) {
    for (AbstractApplicationContextRunner<?, ?, ?> runner : runners()) {
      runner
          .withPropertyValues(
              RULE + ".limits[0].permits=3", RULE + ".limits[0].window=10s", RULE + "." + property)
          .run(
              context -> {
                assertThat(context).hasFailed();
                assertThat(propertyMessage(context.getStartupFailure())).isEqualTo(RULE + message);
              });
    }
  }

  @Test
  void countStatusesWithCountRefusedAttempts_failsAtStartupNamingTheProperty() {
    for (AbstractApplicationContextRunner<?, ?, ?> runner : runners()) {
      runner
          .withPropertyValues(
              RULE + ".limits[0].permits=3",
              RULE + ".limits[0].window=10s",
              RULE + ".count-statuses=400-599",
              RULE + ".count-refused-attempts=true")
          .run(
              context ->
                  assertThat(propertyMessage(context.getStartupFailure()))
                      .startsWith(RULE + ".count-statuses: a rule that counts refused attempts"));
    }
  }

  @Test
  void countStatuses_onABackendThatCannotRefund_failsAtStartupNamingTheRule() {
    RateLimiterFactory own = (name, limits, countRefused) -> new FailingLimiter();
    for (AbstractApplicationContextRunner<?, ?, ?> runner : runners()) {
      runner
          .withBean(RateLimiterFactory.class, () -> own)
          .withPropertyValues(
              RULE + ".limits[0].permits=3",
              RULE + ".limits[0].window=10s",
              RULE + ".count-statuses=400-599")
          .run(
              context ->
                  assertThat(context.getStartupFailure())
                      .hasStackTraceContaining(
                          "countStatuses: rule 'logins' counts only some statuses")
                      .hasStackTraceContaining(FailingLimiter.class.getName()));
    }
  }

  @Test
  void countStatuses_statusesAndRanges_bindInOrder() {
    for (AbstractApplicationContextRunner<?, ?, ?> runner : runners()) {
      runner
          .withPropertyValues(
              RULE + ".limits[0].permits=3",
              RULE + ".limits[0].window=10s",
              RULE + ".count-statuses[0]= 401 ",
              RULE + ".count-statuses[1]=500-599")
          .run(
              context -> {
                assertThat(context).hasNotFailed();
                SlidingWindowHttpProperties properties =
                    context.getBean(SlidingWindowHttpProperties.class);
                assertThat(
                        RuleBinder.bound(properties, false).get(0).rule().countStatuses().entries())
                    .containsExactly("401", "500-599");
              });
    }
  }

  /** The message of the first cause that names a property of the starter. */
  private static String propertyMessage(Throwable failure) {
    for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
      if (cause.getMessage() != null && cause.getMessage().startsWith("slidingwindow.")) {
        return cause.getMessage();
      }
    }
    return String.valueOf(failure);
  }
}
