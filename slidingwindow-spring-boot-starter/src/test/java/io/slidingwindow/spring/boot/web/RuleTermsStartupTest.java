package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RefusalReplies;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.AbstractApplicationContextRunner;
import org.springframework.boot.test.context.runner.ReactiveWebApplicationContextRunner;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;

/**
 * A bad condition, cost or refusal stops start-up on either web stack with a message naming the
 * property; the defaults of the new properties are the library's.
 */
class RuleTermsStartupTest {

  private static final String RULE = "slidingwindow.http.rules.r";

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
        "execute-condition=headerValue('X' | .execute-condition must be a condition",
        "skip-condition=T(java.lang.Runtime).getRuntime() | .skip-condition must be a condition",
        "skip-condition=missing == 1 | 'missing' is not one of",
        "cost-expression=new java.io.File('x') | .cost-expression must be an expression",
        "cost-header=X Cost | .cost-header must be a header name, was 'X Cost'",
        "cost=0 | .cost: cost must be positive, was 0",
        "cost=6 | .cost: cost must be at most every limit's permits, was 6 with a limit of 5",
      })
  void badRuleTerm_failsAtStartupNamingTheProperty(String property, String message) {
    for (AbstractApplicationContextRunner<?, ?, ?> runner : runners()) {
      runner
          .withPropertyValues(
              RULE + ".limits[0].permits=5", RULE + ".limits[0].window=1s", RULE + "." + property)
          .run(
              context -> {
                assertThat(context).hasFailed();
                assertThat(propertyMessage(context.getStartupFailure()))
                    .startsWith(RULE)
                    .contains(message);
              });
    }
  }

  @Test
  void costHeaderAndCostExpression_together_failAtStartupNamingBoth() {
    for (AbstractApplicationContextRunner<?, ?, ?> runner : runners()) {
      runner
          .withPropertyValues(
              RULE + ".limits[0].permits=5",
              RULE + ".limits[0].window=1s",
              RULE + ".cost-header=X-Cost",
              RULE + ".cost-expression=2")
          .run(
              context ->
                  assertThat(propertyMessage(context.getStartupFailure()))
                      .isEqualTo(
                          RULE
                              + ".cost-header: set cost-header or cost-expression, not both;"
                              + " were 'X-Cost' and '2'"));
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "status=200 | slidingwindow.http.refusal.status: status must be a client or server error",
        "status=302 | slidingwindow.http.refusal.status: status must be a client or server error",
        "content-type=json | slidingwindow.http.refusal.content-type: content type must be",
      })
  void badRefusal_failsAtStartupNamingTheProperty(String property, String message) {
    for (AbstractApplicationContextRunner<?, ?, ?> runner : runners()) {
      runner
          .withPropertyValues("slidingwindow.http.refusal." + property)
          .run(
              context ->
                  assertThat(propertyMessage(context.getStartupFailure())).startsWith(message));
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

  @Test
  void defaults_areTheLibrarysDefaults() {
    SlidingWindowHttpProperties properties = new SlidingWindowHttpProperties();
    SlidingWindowHttpProperties.Rule rule = new SlidingWindowHttpProperties.Rule();

    assertThat(properties.getRefusal().toRefusal()).isEqualTo(RefusalReplies.Refusal.DEFAULT);
    assertThat(rule.getCost())
        .isEqualTo(
            HttpRule.builder("r")
                .limit(io.slidingwindow.Limit.of(1, java.time.Duration.ofSeconds(1)))
                .build()
                .cost());
    assertThat(rule.getExecuteCondition()).isNull();
    assertThat(rule.getSkipCondition()).isNull();
    assertThat(rule.getCostHeader()).isNull();
    assertThat(rule.getCostExpression()).isNull();
  }
}
