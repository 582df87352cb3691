package io.slidingwindow.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Decision;
import io.slidingwindow.KeyRejectedException;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import io.slidingwindow.spring.method.RateLimitMethodPostProcessor;
import io.slidingwindow.testkit.FakeTicker;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * A bean method's key expression on a value whose {@code toString} names the instance (an array, a
 * class without a {@code toString} of its own): keyed by its content, or counted under the rule's
 * global key, never a key of its own per call.
 */
class MethodKeyValuesTest {

  /** An argument type without a {@code toString} of its own. */
  public static final class Customer {
    private final String id;

    public Customer(String id) {
      this.id = id;
    }

    public String getId() {
      return id;
    }
  }

  /** A bean limited at one call per hour a key. */
  public static class Search {
    @RateLimit(limits = "1/1h", key = "#p0")
    public String byTags(String[] tags) {
      return String.join(",", tags);
    }

    @RateLimit(limits = "1/1h", key = "#p0")
    public String byCustomer(Customer customer) {
      return customer.getId();
    }

    @RateLimit(limits = "1/1h", key = "#p0.id")
    public String byCustomerId(Customer customer) {
      return customer.getId();
    }
  }

  private final FakeTicker ticker = new FakeTicker();
  private final List<String> events = new CopyOnWriteArrayList<>();
  private final AnnotationConfigApplicationContext context = start();
  private final Search search = context.getBean(Search.class);

  private AnnotationConfigApplicationContext start() {
    RateLimitListener listener =
        new RateLimitListener() {
          @Override
          public void onAllowed(HttpRule rule, Decision decision) {
            events.add("allowed " + rule.name());
          }

          @Override
          public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
            events.add("refused " + rule.name());
          }

          @Override
          public void onError(HttpRule rule, RuntimeException error) {
            events.add("error " + rule.name() + ": " + error.getClass().getSimpleName());
          }
        };
    AnnotationConfigApplicationContext started = new AnnotationConfigApplicationContext();
    started.registerBean(
        "rateLimitMethods",
        RateLimitMethodPostProcessor.class,
        () ->
            new RateLimitMethodPostProcessor(
                () -> RateLimiterFactory.inMemory(ticker, 10_000), () -> listener));
    started.registerBean("search", Search.class);
    started.refresh();
    return started;
  }

  @AfterEach
  void close() {
    context.close();
  }

  @Test
  void arrayArgument_secondCallWithAnEqualArray_refused() {
    assertThat(search.byTags(new String[] {"red", "blue"})).isEqualTo("red,blue");

    assertThatThrownBy(() -> search.byTags(new String[] {"red", "blue"}))
        .isInstanceOf(RateLimitExceededException.class);
    assertThat(search.byTags(new String[] {"green"}))
        .as("another array, another key")
        .isEqualTo("green");
    assertThat(events)
        .containsExactly("allowed Search.byTags", "refused Search.byTags", "allowed Search.byTags");
  }

  @Test
  void identityToStringArgument_countsUnderTheGlobalKey_secondCallRefused() {
    assertThat(search.byCustomer(new Customer("c1"))).isEqualTo("c1");

    assertThatThrownBy(() -> search.byCustomer(new Customer("c2")))
        .isInstanceOf(RateLimitExceededException.class);
    assertThat(events)
        .containsExactly(
            "error Search.byCustomer: KeyRejectedException",
            "allowed Search.byCustomer",
            "error Search.byCustomer: KeyRejectedException",
            "refused Search.byCustomer");
    // Keyed on a field instead, each customer has a key of its own.
    assertThat(search.byCustomerId(new Customer("c1"))).isEqualTo("c1");
    assertThat(search.byCustomerId(new Customer("c2"))).isEqualTo("c2");
    assertThatThrownBy(() -> search.byCustomerId(new Customer("c1")))
        .isInstanceOf(RateLimitExceededException.class);
  }

  @Test
  void methodKey_arrayOrIdentityResult_keyedByContentOrRejected() {
    Function<Object[], RequestKey> key = KeyLanguage.methodKey("m: key", "#p0", 1, null);

    assertThat(key.apply(new Object[] {new int[] {1, 2}}).value()).isEqualTo("(custom:1|custom:2)");
    assertThat(key.apply(new Object[] {new byte[] {1}}))
        .isEqualTo(key.apply(new Object[] {new byte[] {1}}));
    assertThat(key.apply(new Object[] {"text"})).isEqualTo(RequestKey.custom("text"));
    assertThatThrownBy(() -> key.apply(new Object[] {new Customer("c1")}))
        .isInstanceOf(KeyRejectedException.class)
        .hasMessageContaining(Customer.class.getName());
    assertThat(
            KeyLanguage.methodKey("m: key", "key(#p0, #p1)", 2, null)
                .apply(new Object[] {"a", new long[] {7}})
                .value())
        .isEqualTo("(custom:a|(custom:7))");
  }
}
