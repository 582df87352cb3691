package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.spring.RateLimit;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import reactor.core.publisher.Mono;

/**
 * {@code @RateLimit} on the interface of a bean that is an interface-based proxy with no target (as
 * an HTTP interface client is), whose handler hands each call to another bean that implements the
 * interface, as a Spring Data repository does with a fragment: the proxy's calls are limited under
 * the interface's names, and counted once.
 */
class InterfaceCallsTest {

  /** The interface. */
  public interface Prices {
    @RateLimit(limits = "1/10s", key = "#item")
    String price(String item);

    @RateLimit(limits = "1/10s", key = "#item")
    CompletableFuture<String> priceSoon(String item);

    @RateLimit(limits = "1/10s", key = "#item")
    Mono<String> priceLater(String item);

    String free(String item);
  }

  /** A bean that implements it. */
  public static class StorePrices implements Prices {
    @Override
    public String price(String item) {
      return "1.00 for " + item;
    }

    @Override
    public CompletableFuture<String> priceSoon(String item) {
      return CompletableFuture.completedFuture(price(item));
    }

    @Override
    public Mono<String> priceLater(String item) {
      return Mono.fromSupplier(() -> price(item));
    }

    @Override
    public String free(String item) {
      return item;
    }
  }

  /** The proxy, a bean that hands every call to the store's bean. */
  public static class Clients {
    @Bean
    public Prices prices(@Qualifier("storePrices") Prices store) {
      return (Prices)
          Proxy.newProxyInstance(
              Prices.class.getClassLoader(),
              new Class<?>[] {Prices.class},
              (proxy, method, args) -> {
                switch (method.getName()) {
                  case "equals":
                    return proxy == args[0];
                  case "hashCode":
                    return System.identityHashCode(proxy);
                  case "toString":
                    return "prices";
                  default:
                    try {
                      return method.invoke(store, args);
                    } catch (InvocationTargetException e) {
                      throw e.getCause();
                    }
                }
              });
    }
  }

  private final MethodContexts contexts = new MethodContexts();
  private final AnnotationConfigApplicationContext context =
      contexts.start(StorePrices.class, Clients.class);
  private final Prices prices = context.getBean("prices", Prices.class);

  @AfterEach
  void close() {
    context.close();
  }

  /** What a call of {@code method} gave: its value, or the simple name of what it threw. */
  private static String call(Prices prices, String method, String item) {
    return MethodContexts.outcome(
        () ->
            switch (method) {
              case "price" -> prices.price(item);
              case "priceSoon" -> prices.priceSoon(item).join();
              case "priceLater" -> prices.priceLater(item).block(Duration.ofSeconds(10));
              case "free" -> prices.free(item);
              default -> throw new IllegalArgumentException(method);
            });
  }

  @ParameterizedTest
  @ValueSource(strings = {"price", "priceSoon", "priceLater"})
  void proxyWithoutTarget_callHandedToALimitedBean_countedOnceUnderTheInterfacesName(
      String method) {
    assertThat(call(prices, method, "tea")).isEqualTo("1.00 for tea");

    assertThat(contexts.events).containsExactly("allowed Prices." + method);
    assertThat(call(prices, method, "tea")).isEqualTo("RateLimitExceededException");
    assertThat(call(prices, method, "jam")).isEqualTo("1.00 for jam");
    assertThat(contexts.events).endsWith("refused Prices." + method, "allowed Prices." + method);

    Prices store = context.getBean("storePrices", Prices.class);
    assertThat(call(store, method, "tea")).as("the store's own limit").isEqualTo("1.00 for tea");
    assertThat(call(store, method, "tea")).isEqualTo("RateLimitExceededException");
  }

  @Test
  void proxyWithoutTarget_methodWithoutRateLimit_neverLimited() {
    for (int i = 0; i < 5; i++) {
      assertThat(call(prices, "free", "tea")).isEqualTo("tea");
    }
    assertThat(contexts.events).isEmpty();
  }

  /**
   * A call that another application context's proxy counted reaches a bean of this one, whose
   * post-processor counts it under the bean's own rule: each post-processor counts a call once,
   * whether or not it has an interface-based proxy of its own.
   */
  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void callCountedInAnotherContext_countedOnceByThisContextToo(boolean storeHasAProxyOfItsOwn) {
    MethodContexts store = new MethodContexts();
    try (AnnotationConfigApplicationContext storeContext =
        storeHasAProxyOfItsOwn
            ? store.start(StorePrices.class, Clients.class)
            : store.start(StorePrices.class)) {
      MethodContexts clients = new MethodContexts();
      clients.readyMade.put("storePrices", storeContext.getBean("storePrices"));
      try (AnnotationConfigApplicationContext clientsContext = clients.start(Clients.class)) {
        Prices remote = clientsContext.getBean("prices", Prices.class);

        assertThat(call(remote, "price", "tea")).isEqualTo("1.00 for tea");

        assertThat(clients.events).containsExactly("allowed Prices.price");
        assertThat(store.events).containsExactly("allowed StorePrices.price");
      }
    }
  }
}
