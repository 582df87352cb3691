package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import java.beans.Introspector;
import java.util.function.Function;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/**
 * {@code @RateLimit} found where the method a call runs gets it from: the interface it implements
 * (through a bridge method, or inherited from a superclass that does not implement the interface),
 * a default method, the method it overrides; each call counted once, with interface-based and
 * class-based proxies alike.
 */
class MethodHierarchyTest {

  /** A generic interface: its implementations' calls through it pass a bridge method. */
  public interface Handler<T> {
    @RateLimit(limits = "1/10s", key = "#item")
    String handle(T item);
  }

  /** Implements it for text: {@code handle(Object)} is a bridge to {@code handle(String)}. */
  public static class TextHandler implements Handler<String> {
    @Override
    public String handle(String item) {
      return "handled " + item;
    }
  }

  /** An interface whose limited method has a body. */
  public interface Greeter {
    @RateLimit(limits = "1/10s")
    default String greet() {
      return "hello";
    }
  }

  /** Takes the default method as it is. */
  public static class DefaultGreeter implements Greeter {}

  /** An interface of the application's. */
  public interface Finder {
    @RateLimit(limits = "1/10s", key = "#id")
    String find(String id);
  }

  /** A class that has the method of the interface, but does not implement it. */
  public static class Dao {
    public String find(String id) {
      return "found " + id;
    }
  }

  /** Implements the interface with the method it inherits from {@link Dao}. */
  public static class DaoFinder extends Dao implements Finder {}

  /** Another interface with the same method, limited otherwise. */
  public interface Lookup {
    @RateLimit(limits = "5/10s")
    String find(String id);
  }

  /** Implements it with the same inherited method as {@link DaoFinder}. */
  public static class DaoLookup extends Dao implements Lookup {}

  /** A client whose limited method has a fallback that each subclass defines. */
  public abstract static class Client {
    @RateLimit(limits = "1/10s", fallbackMethod = "busy")
    public String call() {
      return "called " + getClass().getSimpleName();
    }
  }

  /** One client. */
  public static class Payments extends Client {
    String busy(RateLimitExceededException refusal) {
      return "payments busy";
    }
  }

  /** Another. */
  public static class Shipping extends Client {
    String busy(RateLimitExceededException refusal) {
      return "shipping busy";
    }
  }

  /** An interface whose limited method's rule has a name of its own. */
  public interface Sender {
    @RateLimit(limits = "1/10s", name = "sends")
    String send();
  }

  /** One implementation. */
  public static class Mail implements Sender {
    @Override
    public String send() {
      return "mailed";
    }
  }

  /** Another. */
  public static class Sms implements Sender {
    @Override
    public String send() {
      return "texted";
    }
  }

  /** A limited method of a class. */
  public static class Pricing {
    @RateLimit(limits = "1/10s", key = "#item")
    public String price(String item) {
      return "1.00";
    }
  }

  /** Overrides it without the annotation. */
  public static class DiscountPricing extends Pricing {
    @Override
    public String price(String item) {
      return "0.90";
    }
  }

  /**
   * What two calls of a bean's limited method, then one with another key, gave, and the listener's
   * events.
   */
  private static String calls(
      boolean classProxies, Class<?> bean, Function<Object, String> call, String rule) {
    MethodContexts contexts = new MethodContexts();
    if (classProxies) {
      contexts.classProxies();
    }
    try (AnnotationConfigApplicationContext context = contexts.start(bean)) {
      Object proxy = context.getBean(Introspector.decapitalize(bean.getSimpleName()));
      String first = MethodContexts.outcome(() -> call.apply(proxy));
      String second = MethodContexts.outcome(() -> call.apply(proxy));
      assertThat(contexts.events).containsExactly("allowed " + rule, "refused " + rule);
      return first + ", " + second;
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void interfaceMethodImplementedByAnInheritedMethod_limited(boolean classProxies) {
    assertThat(calls(classProxies, DaoFinder.class, f -> ((Finder) f).find("a"), "Dao.find"))
        .isEqualTo("found a, RateLimitExceededException");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void genericInterfaceMethod_calledThroughItsBridge_countedOnce(boolean classProxies) {
    @SuppressWarnings("unchecked")
    Function<Object, String> call = h -> ((Handler<String>) h).handle("a");
    assertThat(calls(classProxies, TextHandler.class, call, "TextHandler.handle"))
        .isEqualTo("handled a, RateLimitExceededException");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void defaultMethod_limited(boolean classProxies) {
    assertThat(
            calls(classProxies, DefaultGreeter.class, g -> ((Greeter) g).greet(), "Greeter.greet"))
        .isEqualTo("hello, RateLimitExceededException");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void methodOverriddenWithoutTheAnnotation_keepsTheLimit(boolean classProxies) {
    assertThat(
            calls(
                classProxies,
                DiscountPricing.class,
                p -> ((Pricing) p).price("a"),
                "DiscountPricing.price"))
        .isEqualTo("0.90, RateLimitExceededException");
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void inheritedMethodImplementingTwoLimitedInterfacesInTwoBeans_failsStartUpNamingBoth(
      boolean classProxies) {
    MethodContexts contexts = new MethodContexts();
    if (classProxies) {
      contexts.classProxies();
    }
    assertThatThrownBy(() -> contexts.start(DaoFinder.class, DaoLookup.class).close())
        .rootCause()
        .hasMessageContaining("bean 'daoLookup'")
        .hasMessageContaining(Dao.class.getName() + ".find implements both")
        .hasMessageContaining(Lookup.class.getName() + ".find(String)")
        .hasMessageContaining(Finder.class.getName() + ".find(String)")
        .hasMessageContaining("override it in " + DaoLookup.class.getName());
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void methodInheritedByTwoBeans_oneRule_eachRefusalAnsweredByItsOwnClassesFallback(
      boolean classProxies) {
    MethodContexts contexts = new MethodContexts();
    if (classProxies) {
      contexts.classProxies();
    }
    try (AnnotationConfigApplicationContext context =
        contexts.start(Payments.class, Shipping.class)) {
      Client payments = context.getBean(Payments.class);
      Client shipping = context.getBean(Shipping.class);

      assertThat(payments.call()).isEqualTo("called Payments");
      assertThat(MethodContexts.outcome(shipping::call)).isEqualTo("shipping busy");
      assertThat(MethodContexts.outcome(payments::call)).isEqualTo("payments busy");
      assertThat(contexts.events)
          .containsExactly("allowed Client.call", "refused Client.call", "refused Client.call");
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {false, true})
  void namedInterfaceMethodImplementedByTwoBeans_oneRuleCountsThemTogether(boolean classProxies) {
    MethodContexts contexts = new MethodContexts();
    if (classProxies) {
      contexts.classProxies();
    }
    try (AnnotationConfigApplicationContext context = contexts.start(Mail.class, Sms.class)) {
      Sender mail = (Sender) context.getBean("mail");
      Sender sms = (Sender) context.getBean("sms");

      assertThat(mail.send()).isEqualTo("mailed");
      assertThat(MethodContexts.outcome(sms::send)).isEqualTo("RateLimitExceededException");
      assertThat(contexts.events).containsExactly("allowed sends", "refused sends");
    }
  }
}
