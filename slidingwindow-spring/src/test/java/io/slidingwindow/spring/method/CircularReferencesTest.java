package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import io.slidingwindow.spring.method.OtherProxiesTest.ClassTransactions;
import io.slidingwindow.spring.method.OtherProxiesTest.CountingTransactions;
import io.slidingwindow.spring.method.OtherProxiesTest.InterfaceTransactions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.transaction.annotation.Transactional;

/**
 * {@code @RateLimit} on a bean in a circular reference, made first: the bean it needs is given an
 * early reference to it before it is initialized, which another post-processor (the auto-proxy
 * creator of {@code @Transactional}) may have made its proxy already. Either the call through that
 * reference is limited, or start-up stops naming the bean and the method.
 */
class CircularReferencesTest {

  /** How often an order was placed. */
  static final AtomicInteger PLACED = new AtomicInteger();

  /** What the beans in the circle implement. */
  public interface Orders {
    String place(String item);
  }

  /** Transactional and limited, and needs {@link Payments}, which needs it. */
  public static class TxOrders implements Orders {
    @Autowired Payments payments;

    @Override
    @Transactional
    @RateLimit(limits = "1/1h")
    public String place(String item) {
      PLACED.incrementAndGet();
      return item;
    }
  }

  /** Limited only, and needs {@link Payments}, which needs it. */
  public static class PlainOrders implements Orders {
    @Autowired Payments payments;

    @Override
    @RateLimit(limits = "1/1h")
    public String place(String item) {
      PLACED.incrementAndGet();
      return item;
    }
  }

  /** Transactional through its interface, limited on a method the interface lacks. */
  public static class TxAuditedOrders implements Orders {
    @Autowired Payments payments;

    @Override
    @Transactional
    public String place(String item) {
      return item;
    }

    @RateLimit(limits = "1/1h")
    public String audit() {
      return "audited";
    }
  }

  /** The other end of the circle, given an early reference to the orders. */
  public static class Payments {
    @Autowired Orders orders;
  }

  /** A bean that needs the orders, made before them, so that it is what makes them. */
  public static class Shop {
    @Autowired Orders orders;
  }

  /**
   * The beans after the first ones, made in this order: the orders first (Spring 6.2 makes a bean
   * again that failed with a circular reference when {@code preInstantiateSingletons} asked for it
   * itself, this time after the bean it needs), or a {@link Shop} first, which makes them (a
   * failure then stops start-up).
   */
  private static List<List<Class<?>>> entries(Class<?> orders) {
    return List.of(List.of(orders, Payments.class), List.of(Shop.class, orders, Payments.class));
  }

  /** A context started with {@code first} and then {@code rest}. */
  private static AnnotationConfigApplicationContext start(
      MethodContexts contexts, List<Class<?>> first, List<Class<?>> rest) {
    List<Class<?>> beans = new ArrayList<>(first);
    beans.addAll(rest);
    return contexts.start(beans.toArray(Class<?>[]::new));
  }

  private static List<MethodContexts> bothKinds() {
    return List.of(new MethodContexts(), new MethodContexts().classProxies());
  }

  /**
   * The transaction proxy that the auto-proxy creator made early, of either kind, is the one the
   * other bean holds and the one the application gets: the limit is added to it, and the second
   * call through it is refused before the transaction and the method.
   */
  @Test
  void earlyTransactionProxy_callThroughTheOtherBean_limited() {
    for (Class<?> transactions : List.of(InterfaceTransactions.class, ClassTransactions.class)) {
      for (List<Class<?>> entry : entries(TxOrders.class)) {
        for (MethodContexts contexts : bothKinds()) {
          try (AnnotationConfigApplicationContext context =
              start(contexts, List.of(transactions), entry)) {
            String setting = transactions.getSimpleName() + " " + entry;
            Orders held = context.getBean(Payments.class).orders;
            CountingTransactions counted = context.getBean(CountingTransactions.class);
            assertThat(held).as(setting).isSameAs(context.getBean(Orders.class));
            int before = PLACED.get();

            assertThat(held.place("a")).isEqualTo("a");

            assertThatThrownBy(() -> held.place("a"))
                .as(setting)
                .isInstanceOf(RateLimitExceededException.class);
            assertThat(PLACED.get() - before).as(setting).isEqualTo(1);
            assertThat(counted.begun).as(setting).hasValue(1);
          }
        }
      }
    }
  }

  /** With no other proxy, the early reference is this post-processor's own proxy. */
  @Test
  void noOtherProxy_callThroughTheOtherBean_limited() {
    for (List<Class<?>> entry : entries(PlainOrders.class)) {
      for (MethodContexts contexts : bothKinds()) {
        try (AnnotationConfigApplicationContext context = start(contexts, List.of(), entry)) {
          Orders held = context.getBean(Payments.class).orders;
          assertThat(held).as(entry.toString()).isSameAs(context.getBean(Orders.class));
          int before = PLACED.get();

          assertThat(held.place("a")).isEqualTo("a");

          assertThatThrownBy(() -> held.place("a"))
              .as(entry.toString())
              .isInstanceOf(RateLimitExceededException.class);
          assertThat(PLACED.get() - before).as(entry.toString()).isEqualTo(1);
        }
      }
    }
  }

  /**
   * An early interface-based transaction proxy cannot reach a method its interface lacks: start-up
   * stops with the reach check's message, whatever kind this post-processor's proxies are, rather
   * than Spring's about a bean injected in its raw version.
   */
  @Test
  void earlyInterfaceBasedTransactionProxy_methodTheInterfaceLacks_failsStartUp() {
    for (List<Class<?>> entry : entries(TxAuditedOrders.class)) {
      for (MethodContexts contexts : bothKinds()) {
        Throwable thrown =
            catchThrowable(() -> start(contexts, List.of(InterfaceTransactions.class), entry));
        assertThat(thrown)
            .as(entry.toString())
            .isNotNull()
            .rootCause()
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("bean 'txAuditedOrders'")
            .hasMessageContaining(TxAuditedOrders.class.getName() + ".audit()")
            .hasMessageContaining("would never be applied")
            .hasMessageContaining("interface-based");
      }
    }
  }
}
