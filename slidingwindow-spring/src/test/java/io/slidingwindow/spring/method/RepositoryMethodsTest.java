package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.aopalliance.intercept.MethodInterceptor;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.framework.ProxyFactory;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.ComponentScan;
import org.springframework.context.annotation.FilterType;
import org.springframework.core.Ordered;
import org.springframework.data.annotation.Id;
import org.springframework.data.map.repository.config.EnableMapRepositories;
import org.springframework.data.repository.CrudRepository;

/**
 * {@code @RateLimit} on the methods of Spring Data repository interfaces, in memory: the bean is an
 * interface-based proxy whose target (the store's base repository class) does not implement the
 * application's interface. Its annotated methods (derived queries, inherited ones, redeclared CRUD
 * methods, default methods, fragments) are limited, each counted once, and checked at start-up.
 */
class RepositoryMethodsTest {

  /** A stored order. */
  public static class Order {
    @Id private String id;
    private String customer;
    private String status;

    public Order() {}

    Order(String id, String customer, String status) {
      this.id = id;
      this.customer = customer;
      this.status = status;
    }

    public String getId() {
      return id;
    }

    public String getCustomer() {
      return customer;
    }

    public String getStatus() {
      return status;
    }
  }

  /** An interface of the application's that the repository extends: its query is derived. */
  public interface OrderFinder {
    @RateLimit(limits = "1/10s", key = "#status")
    List<Order> findByStatus(String status);
  }

  /** A fragment of the repository, implemented by a class of the application's. */
  public interface OrderAudit {
    @RateLimit(limits = "1/10s", key = "#id")
    String audit(String id);

    @RateLimit(limits = "1/10s", key = "#id")
    CompletableFuture<String> auditSoon(String id);
  }

  /** The fragment's implementation, found by its name. */
  public static class OrderAuditImpl implements OrderAudit {
    @Override
    public String audit(String id) {
      return "audited " + id;
    }

    @Override
    public CompletableFuture<String> auditSoon(String id) {
      return CompletableFuture.completedFuture("audited " + id);
    }
  }

  /** An interface of the application's that declares a method of CrudRepository too. */
  public interface Counting {
    @RateLimit(limits = "1/10s")
    long count();
  }

  /** The repository. */
  public interface OrderRepository extends CrudRepository<Order, String>, OrderFinder, OrderAudit {
    @RateLimit(limits = "2/10s", key = "#customer")
    List<Order> findByCustomer(String customer);

    List<Order> findByCustomerAndStatus(String customer, String status);

    @Override
    @RateLimit(limits = "1/10s", key = "#id")
    Optional<Order> findById(String id);

    @Override
    @RateLimit(limits = "1/10s")
    long count();

    /** Places an order; one without a customer is refused, and such refusals count. */
    @RateLimit(limits = "1/10s", countOn = IllegalArgumentException.class)
    default Order place(Order order) {
      if (order.getCustomer() == null) {
        throw new IllegalArgumentException("an order needs a customer");
      }
      return save(order);
    }
  }

  /** A second repository over the same store class, with a limit of its own on count. */
  public interface OrderArchive extends CrudRepository<Order, String> {
    @Override
    @RateLimit(limits = "1/10s")
    long count();
  }

  /** A repository that has count from two interfaces, one of which limits it. */
  public interface OrderLedger extends CrudRepository<Order, String>, Counting {}

  /** The application's repositories. */
  @EnableMapRepositories(
      considerNestedRepositories = true,
      basePackageClasses = RepositoryMethodsTest.class,
      includeFilters =
          @ComponentScan.Filter(
              type = FilterType.ASSIGNABLE_TYPE,
              classes = {OrderRepository.class, OrderArchive.class, OrderLedger.class}))
  public static class Orders {}

  private final MethodContexts contexts = new MethodContexts();
  private final AnnotationConfigApplicationContext context =
      contexts.start(Orders.class, Callers.class);
  private final OrderRepository orders = context.getBean(OrderRepository.class);

  @AfterEach
  void close() {
    context.close();
  }

  @Test
  void derivedQuery_thirdCallOfAKey_refused() {
    orders.save(new Order("1", "ann", "open"));
    orders.save(new Order("2", "bob", "open"));

    assertThat(orders.findByCustomer("ann")).extracting(Order::getId).containsExactly("1");
    contexts.ticker.advance(Duration.ofSeconds(4));
    assertThat(orders.findByCustomer("ann")).hasSize(1);
    assertThat(orders.findByCustomer("bob")).extracting(Order::getId).containsExactly("2");

    assertThatThrownBy(() -> orders.findByCustomer("ann"))
        .isInstanceOfSatisfying(
            RateLimitExceededException.class,
            refusal -> {
              assertThat(refusal.rule()).isEqualTo("OrderRepository.findByCustomer");
              assertThat(refusal.retryAfter())
                  .isBetween(Duration.ofSeconds(6), Duration.ofMillis(6010));
            });
    assertThat(contexts.events).endsWith("refused OrderRepository.findByCustomer");

    contexts.ticker.advance(Duration.ofMillis(6010));
    assertThat(orders.findByCustomer("ann")).hasSize(1);
  }

  @Test
  void queryOfAnExtendedInterface_secondCallOfAKey_refused() {
    orders.save(new Order("1", "ann", "open"));

    assertThat(orders.findByStatus("open")).extracting(Order::getId).containsExactly("1");
    assertThat(orders.findByStatus("closed")).isEmpty();

    assertThatThrownBy(() -> orders.findByStatus("open"))
        .isInstanceOfSatisfying(
            RateLimitExceededException.class,
            refusal -> assertThat(refusal.rule()).isEqualTo("OrderFinder.findByStatus"));
  }

  @Test
  void redeclaredCrudMethod_secondCall_refused() {
    orders.save(new Order("1", "ann", "open"));

    assertThat(orders.findById("1")).isPresent();
    assertThat(orders.findById("2")).isEmpty();

    assertThatThrownBy(() -> orders.findById("1"))
        .isInstanceOfSatisfying(
            RateLimitExceededException.class,
            refusal -> assertThat(refusal.rule()).isEqualTo("OrderRepository.findById"));
  }

  @Test
  void sameCrudMethodOfTwoRepositories_eachItsOwnRule() {
    OrderArchive archive = context.getBean(OrderArchive.class);
    orders.save(new Order("1", "ann", "open"));

    assertThat(orders.count()).isEqualTo(1);
    assertThat(archive.count()).as("the archive's own limit").isEqualTo(1);

    assertThatThrownBy(orders::count)
        .isInstanceOfSatisfying(
            RateLimitExceededException.class,
            refusal -> assertThat(refusal.rule()).isEqualTo("OrderRepository.count"));
    assertThatThrownBy(archive::count)
        .isInstanceOfSatisfying(
            RateLimitExceededException.class,
            refusal -> assertThat(refusal.rule()).isEqualTo("OrderArchive.count"));
  }

  @Test
  void methodOfTwoInterfaces_limitedWhicheverTheCallerUses() {
    OrderLedger ledger = context.getBean(OrderLedger.class);
    CrudRepository<Order, String> crud = ledger;
    Counting counting = ledger;

    assertThat(crud.count()).isZero();

    assertThatThrownBy(counting::count)
        .isInstanceOfSatisfying(
            RateLimitExceededException.class,
            refusal -> assertThat(refusal.rule()).isEqualTo("Counting.count"));
    assertThatThrownBy(crud::count).isInstanceOf(RateLimitExceededException.class);
  }

  @Test
  void redeclaredCrudMethod_calledThroughCrudRepository_limitedAsWell() {
    CrudRepository<Order, String> crud = orders;

    assertThat(crud.findById("1")).isEmpty();

    assertThatThrownBy(() -> crud.findById("1"))
        .isInstanceOfSatisfying(
            RateLimitExceededException.class,
            refusal -> assertThat(refusal.rule()).isEqualTo("OrderRepository.findById"));
  }

  @Test
  void methodsWithoutRateLimit_neverLimited() {
    for (int i = 0; i < 5; i++) {
      orders.save(new Order("o" + i, "ann", "open"));
      assertThat(orders.findByCustomerAndStatus("ann", "open")).hasSize(i + 1);
      assertThat(orders.findAll()).hasSize(i + 1);
      assertThat(orders.existsById("o" + i)).isTrue();
    }

    assertThat(contexts.events).isEmpty();
  }

  @Test
  void defaultMethodWithCountOn_onlyCountedFailuresFillTheWindow() {
    for (int i = 0; i < 3; i++) {
      assertThat(orders.place(new Order("o" + i, "ann", "open")).getId()).isEqualTo("o" + i);
    }
    assertThatThrownBy(() -> orders.place(new Order("x", null, "open")))
        .isInstanceOf(IllegalArgumentException.class);

    assertThatThrownBy(() -> orders.place(new Order("o9", "ann", "open")))
        .isInstanceOfSatisfying(
            RateLimitExceededException.class,
            refusal -> assertThat(refusal.rule()).isEqualTo("OrderRepository.place"));
    assertThat(orders.existsById("o9")).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"audit", "auditSoon"})
  void fragmentMethod_countedOnceThroughTheRepository(String method) {
    assertThat(audit(orders, method, "1")).isEqualTo("audited 1");

    assertThat(contexts.events).containsExactly("allowed OrderAudit." + method);
    assertThat(audit(orders, method, "1")).isEqualTo("RateLimitExceededException");
    assertThat(audit(orders, method, "2")).isEqualTo("audited 2");
  }

  @Test
  void fragmentImplementation_calledItself_countsUnderItsOwnRule() {
    OrderAudit implementation =
        context.getBean("repositoryMethodsTest.OrderAuditImpl", OrderAudit.class);
    assertThat(orders.audit("1")).isEqualTo("audited 1");

    assertThat(implementation.audit("1")).isEqualTo("audited 1");

    assertThat(contexts.events)
        .containsExactly("allowed OrderAudit.audit", "allowed OrderAuditImpl.audit");
    assertThat(audit(implementation, "audit", "1")).isEqualTo("RateLimitExceededException");
  }

  /** What a call of {@code method} gave: its value, or the simple name of what it threw. */
  private static String audit(OrderAudit audit, String method, String id) {
    return MethodContexts.outcome(
        () ->
            switch (method) {
              case "audit" -> audit.audit(id);
              case "auditSoon" -> audit.auditSoon(id).join();
              default -> throw new IllegalArgumentException(method);
            });
  }

  /**
   * Wraps the order repository in a proxy of its own that takes no further advisor, before the rate
   * limits are applied, as another post-processor may.
   */
  public static class Wrapper implements BeanPostProcessor, Ordered {
    final AtomicInteger calls = new AtomicInteger();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
      if (!(bean instanceof OrderRepository)) {
        return bean;
      }
      ProxyFactory factory = new ProxyFactory();
      factory.setTarget(bean);
      factory.setInterfaces(AopProxyUtils.proxiedUserInterfaces(bean));
      factory.addAdvice(
          (MethodInterceptor)
              invocation -> {
                calls.incrementAndGet();
                return invocation.proceed();
              });
      factory.setFrozen(true);
      return factory.getProxy(getClass().getClassLoader());
    }

    @Override
    public int getOrder() {
      return 0;
    }
  }

  @Test
  void repositoryInAFrozenProxy_limitedOnce() {
    MethodContexts wrapped = new MethodContexts();
    try (AnnotationConfigApplicationContext started =
        wrapped.start(Orders.class, Callers.class, Wrapper.class)) {
      OrderRepository repository = started.getBean(OrderRepository.class);
      repository.save(new Order("1", "ann", "open"));

      assertThat(repository.findByCustomer("ann")).hasSize(1);
      assertThat(repository.findByCustomer("ann")).hasSize(1);
      assertThatThrownBy(() -> repository.findByCustomer("ann"))
          .isInstanceOf(RateLimitExceededException.class);
      assertThat(repository.audit("1")).isEqualTo("audited 1");

      assertThat(started.getBean(Wrapper.class).calls).hasValue(4);
      assertThat(wrapped.events)
          .containsExactly(
              "allowed OrderRepository.findByCustomer",
              "allowed OrderRepository.findByCustomer",
              "refused OrderRepository.findByCustomer",
              "allowed OrderAudit.audit");
    }
  }

  /**
   * A bean of the application's that uses every repository, so that they are created at start-up (a
   * repository's factory creates it when it is first needed).
   */
  public static class Callers {
    public Callers(List<CrudRepository<?, ?>> repositories) {
      assertThat(repositories).isNotEmpty();
    }
  }

  /** A fragment whose method's rule has a name of its own. */
  public static class NamedFragment {
    /** The fragment. */
    public interface Notes {
      @RateLimit(limits = "1/10s", key = "#id", name = "order-notes")
      String note(String id);
    }

    /** Its implementation, a bean of its own. */
    public static class NotesImpl implements Notes {
      @Override
      public String note(String id) {
        return "noted " + id;
      }
    }

    /** The repository. */
    public interface Repository extends CrudRepository<Order, String>, Notes {}

    /** Its configuration. */
    @EnableMapRepositories(
        considerNestedRepositories = true,
        basePackageClasses = NamedFragment.class,
        includeFilters =
            @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = Repository.class))
    public static class Config {}
  }

  @Test
  void fragmentMethodWithAName_oneRuleForTheRepositoryAndTheImplementation_eachCallCountedOnce() {
    MethodContexts named = new MethodContexts();
    try (AnnotationConfigApplicationContext started =
        named.start(NamedFragment.Config.class, Callers.class)) {
      NamedFragment.Repository repository = started.getBean(NamedFragment.Repository.class);
      NamedFragment.Notes implementation =
          started.getBeansOfType(NamedFragment.Notes.class).values().stream()
              .filter(notes -> !(notes instanceof NamedFragment.Repository))
              .findFirst()
              .orElseThrow();

      assertThat(repository.note("1")).isEqualTo("noted 1");
      assertThat(MethodContexts.outcome(() -> implementation.note("1")))
          .isEqualTo("RateLimitExceededException");
      assertThat(implementation.note("2")).isEqualTo("noted 2");
      assertThat(MethodContexts.outcome(() -> repository.note("2")))
          .isEqualTo("RateLimitExceededException");

      assertThat(named.events)
          .containsExactly(
              "allowed order-notes",
              "refused order-notes",
              "allowed order-notes",
              "refused order-notes");
    }
  }

  /** A limit that does not parse. */
  public static class BadLimit {
    /** The repository. */
    public interface Repository extends CrudRepository<Order, String> {
      @RateLimit(limits = "often")
      List<Order> findByStatus(String status);
    }

    /** Its configuration. */
    @EnableMapRepositories(
        considerNestedRepositories = true,
        basePackageClasses = BadLimit.class,
        includeFilters =
            @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = Repository.class))
    public static class Config {}
  }

  /** A key that names no argument. */
  public static class BadKey {
    /** The repository. */
    public interface Repository extends CrudRepository<Order, String> {
      @RateLimit(limits = "1/1s", key = "#nobody")
      List<Order> findByStatus(String status);
    }

    /** Its configuration. */
    @EnableMapRepositories(
        considerNestedRepositories = true,
        basePackageClasses = BadKey.class,
        includeFilters =
            @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = Repository.class))
    public static class Config {}
  }

  /** A rule name that a bean's method has taken. */
  public static class TakenName {
    /** The repository. */
    public interface Repository extends CrudRepository<Order, String> {
      @RateLimit(limits = "1/1s", name = "Quotes.plain")
      List<Order> findByStatus(String status);
    }

    /** Its configuration. */
    @EnableMapRepositories(
        considerNestedRepositories = true,
        basePackageClasses = TakenName.class,
        includeFilters =
            @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = Repository.class))
    public static class Config {}
  }

  /** A fallback, which a repository has no class of the application's to hold. */
  public static class Fallback {
    /** The repository. */
    public interface Repository extends CrudRepository<Order, String> {
      @RateLimit(limits = "1/1s", fallbackMethod = "findNone")
      List<Order> findByStatus(String status);

      default List<Order> findNone(String status, RateLimitExceededException refusal) {
        return List.of();
      }
    }

    /** Its configuration. */
    @EnableMapRepositories(
        considerNestedRepositories = true,
        basePackageClasses = Fallback.class,
        includeFilters =
            @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = Repository.class))
    public static class Config {}
  }

  /** One method of two interfaces, each with its own limit. */
  public static class TwoLimits {
    /** An interface of the application's that limits count as well. */
    public interface Counted {
      @RateLimit(limits = "2/1s")
      long count();
    }

    /** The repository, with both. */
    public interface Ledger extends CrudRepository<Order, String>, Counting, Counted {}

    /** Its configuration. */
    @EnableMapRepositories(
        considerNestedRepositories = true,
        basePackageClasses = TwoLimits.class,
        includeFilters =
            @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = Ledger.class))
    public static class Config {}
  }

  @Test
  void start_oneMethodOfTwoInterfacesWithTwoLimits_failsNamingBoth() {
    assertThatThrownBy(
            () -> new MethodContexts().start(TwoLimits.Config.class, Callers.class).close())
        .satisfies(
            e ->
                assertThat(startUpFailure(e))
                    .contains("bean 'repositoryMethodsTest.TwoLimits.Ledger'")
                    .contains(Counting.class.getName() + ".count()")
                    .contains(TwoLimits.Counted.class.getName() + ".count()")
                    .contains("each carries its own @RateLimit"));
  }

  /** A web handler's attribute on a repository method. */
  public static class Statuses {
    /** The repository. */
    public interface Repository extends CrudRepository<Order, String> {
      @RateLimit(limits = "1/1s", countStatuses = "500")
      List<Order> findByStatus(String status);
    }

    /** Its configuration. */
    @EnableMapRepositories(
        considerNestedRepositories = true,
        basePackageClasses = Statuses.class,
        includeFilters =
            @ComponentScan.Filter(type = FilterType.ASSIGNABLE_TYPE, classes = Repository.class))
    public static class Config {}
  }

  @Test
  void start_badAnnotationOnARepositoryMethod_failsNamingTheBeanTheMethodAndTheAttribute() {
    record Case(Class<?> holder, String attribute, String detail) {}
    for (Case c :
        List.of(
            new Case(BadLimit.class, "limits[0]", "often"),
            new Case(BadKey.class, ": key", "#nobody"),
            new Case(TakenName.class, "rule names must be unique", "'Quotes.plain'"),
            new Case(Fallback.class, "fallbackMethod 'findNone'", "does not implement"),
            new Case(Statuses.class, "countStatuses", "countOn"))) {
      Class<?> configuration = nested(c.holder(), false);
      Class<?> repository = nested(c.holder(), true);
      assertThatThrownBy(
              () -> new MethodContexts().start(Quotes.class, configuration, Callers.class).close())
          .as(c.holder().getSimpleName())
          .satisfies(
              e ->
                  assertThat(startUpFailure(e))
                      .contains("bean 'repositoryMethodsTest." + c.holder().getSimpleName())
                      .contains(repository.getName() + ".findByStatus(String)")
                      .contains(c.attribute())
                      .contains(c.detail()));
    }
  }

  /** The interface, or the class, nested in {@code holder}. */
  private static Class<?> nested(Class<?> holder, boolean isInterface) {
    for (Class<?> nested : holder.getClasses()) {
      if (nested.isInterface() == isInterface) {
        return nested;
      }
    }
    throw new AssertionError(holder + " has no nested " + (isInterface ? "interface" : "class"));
  }

  /** The message of the post-processor's exception in the causes of {@code failure}. */
  private static String startUpFailure(Throwable failure) {
    for (Throwable e = failure; e != null; e = e.getCause()) {
      if (e instanceof IllegalArgumentException && e.getMessage().startsWith("bean '")) {
        return e.getMessage();
      }
    }
    throw new AssertionError("no start-up failure of the post-processor in", failure);
  }
}
