package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.testkit.LogCapture;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.logging.Level;
import java.util.stream.Stream;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.NamingStrategy;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.implementation.SuperMethodCall;
import net.bytebuddy.matcher.ElementMatchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A root resource that a container registers as a proxy subclass of the user's class, overriding
 * each method without annotations, on Jersey and RESTEasy, for proxy makers recognised by name
 * (Byte Buddy, Hibernate, Javassist, Quarkus ArC) and for one that is not, whose class is only
 * generated at run time. The user method's {@code @RateLimit} is found through the override; its
 * rule is named after the user class, so the same method reached through a locator shares its
 * limit, and two instances of the application, each with a proxy class of its own, share one window
 * in a backend that keys windows by rule name.
 */
class JaxrsProxyRootTest {

  private final FakeTicker ticker = new FakeTicker();
  private final List<JaxrsServers.Running> servers = new ArrayList<>();
  private LogCapture logged;

  @BeforeEach
  void record() {
    logged = LogCapture.atConfiguredLevel(RateLimitFeature.class.getName());
  }

  @AfterEach
  void stop() {
    logged.close();
    servers.forEach(JaxrsServers.Running::close);
  }

  /** The user's class: a limited method under a default name, and a locator to a copy of itself. */
  @Path("till")
  public static class Till {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "2/1h")
    public String count() {
      return "till";
    }

    @Path("copy")
    public Till copy() {
      return new Till();
    }
  }

  /** Named as Quarkus ArC names the subclass it generates for an intercepted bean. */
  @SuppressWarnings("checkstyle:TypeName")
  public static class Till_Subclass extends Till {
    @Override
    public String count() {
      return super.count();
    }

    @Override
    public Till copy() {
      return super.copy();
    }
  }

  /** Named as Quarkus ArC names the client proxy of a normal-scoped bean. */
  @SuppressWarnings("checkstyle:TypeName")
  public static class Till_ClientProxy extends Till {
    @Override
    public String count() {
      return super.count();
    }

    @Override
    public Till copy() {
      return super.copy();
    }
  }

  /** The contract of an interface-based proxy; it limits {@link #limited} only. */
  @Path("counter")
  public interface CounterApi {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    String count();

    @GET
    @Path("limited")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "1/1h", name = "counter-limited")
    String limited();
  }

  /** The class behind the proxy, whose own annotation the proxy does not show. */
  public static class Counter implements CounterApi {
    @Override
    @RateLimit(limits = "1/1h", name = "counter")
    public String count() {
      return "counted";
    }

    @Override
    public String limited() {
      return "limited";
    }
  }

  /** An interface-based proxy of {@link Counter}, as Spring AOP makes without proxyTargetClass. */
  private static Object interfaceProxy() {
    Counter counter = new Counter();
    return java.lang.reflect.Proxy.newProxyInstance(
        CounterApi.class.getClassLoader(),
        new Class<?>[] {CounterApi.class},
        (proxy, method, args) -> method.invoke(counter, args));
  }

  /** A proxy subclass of {@link Till} that Byte Buddy generates, overriding every method. */
  private static Till generated(DynamicType.Builder<Till> builder) {
    try {
      return builder
          .method(ElementMatchers.isDeclaredBy(Till.class))
          .intercept(SuperMethodCall.INSTANCE)
          .make()
          .load(Till.class.getClassLoader())
          .getLoaded()
          .getDeclaredConstructor()
          .newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Byte Buddy's own naming: {@code Till$ByteBuddy$} and a random suffix. */
  private static Till byteBuddy() {
    return generated(new ByteBuddy().subclass(Till.class));
  }

  static Stream<Arguments> proxies() {
    Map<String, Supplier<Till>> makers =
        Map.of(
            "Byte Buddy",
            JaxrsProxyRootTest::byteBuddy,
            "Hibernate",
            () ->
                generated(
                    new ByteBuddy()
                        .with(new NamingStrategy.SuffixingRandom("HibernateProxy"))
                        .subclass(Till.class)),
            "Javassist",
            () ->
                generated(
                    new ByteBuddy()
                        .subclass(Till.class)
                        .name(Till.class.getName() + "_$$_jvst3a_0")),
            "ArC subclass",
            Till_Subclass::new,
            "ArC client proxy",
            Till_ClientProxy::new,
            "a maker not known by name",
            () ->
                generated(
                    new ByteBuddy()
                        .with(new NamingStrategy.SuffixingRandom("Woven"))
                        .subclass(Till.class)));
    return Stream.of(JaxrsServers.Implementation.values())
        .flatMap(
            runtime ->
                makers.entrySet().stream()
                    .map(maker -> Arguments.of(runtime, maker.getKey(), maker.getValue())));
  }

  private JaxrsServers.Running start(
      JaxrsServers.Implementation runtime, Object root, RateLimiterFactory limiters) {
    JaxrsServers.Running server =
        JaxrsServers.start(
            runtime,
            List.of(
                root,
                RateLimitFeature.builder()
                    .limiterFactory(limiters)
                    .rateLimitHeaders(true)
                    .build()));
    servers.add(server);
    return server;
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("proxies")
  void proxyRoot_userClassAlsoLocated_oneLimitNamedAfterTheUserClass(
      JaxrsServers.Implementation runtime, String maker, Supplier<Till> proxy) {
    Till root = proxy.get();
    JaxrsServers.Running server = start(runtime, root, RateLimiterFactory.inMemory(ticker, 1_000));

    HttpResponse<String> first = Http.get(server.uri("/till"));
    HttpResponse<String> second = Http.get(server.uri("/till/copy"));
    HttpResponse<String> third = Http.get(server.uri("/till/copy/copy"));

    assertThat(first.body()).isEqualTo("till");
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(third.statusCode())
        .as("the third request in the hour, through the proxy root or the locator")
        .isEqualTo(429);
    assertThat(first.headers().firstValue("RateLimit-Policy"))
        .as("the rule of %s, a proxy of %s", root.getClass().getName(), Till.class.getName())
        .contains("\"Till.count\";q=2;w=3600");
  }

  @ParameterizedTest(name = "{0}, {1}")
  @MethodSource("proxies")
  void proxyRoot_annotationOnlyOnTheUserClass_limitsTheOverride(
      JaxrsServers.Implementation runtime, String maker, Supplier<Till> proxy) {
    JaxrsServers.Running server =
        start(runtime, proxy.get(), RateLimiterFactory.inMemory(ticker, 1_000));

    List<Integer> statuses =
        Stream.generate(() -> Http.get(server.uri("/till")).statusCode()).limit(3).toList();

    assertThat(statuses).containsExactly(200, 200, 429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void interfaceProxyRoot_annotationBehindIt_unseen_warnedAtTheStartNamingTheMethod(
      JaxrsServers.Implementation runtime) {
    Object root = interfaceProxy();
    JaxrsServers.Running server = start(runtime, root, RateLimiterFactory.inMemory(ticker, 1_000));

    List<Integer> counted =
        Stream.generate(() -> Http.get(server.uri("/counter")).statusCode()).limit(2).toList();
    List<Integer> limited =
        Stream.generate(() -> Http.get(server.uri("/counter/limited")).statusCode())
            .limit(2)
            .toList();

    assertThat(limited).as("limited on the interface").containsExactly(200, 429);
    assertThat(counted).as("limited only on the class behind the proxy").containsExactly(200, 200);
    assertThat(logged.records())
        .as("warnings")
        .filteredOn(r -> r.getLevel() == Level.WARNING)
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.getMessage())
                    .contains(root.getClass().getName())
                    .contains("interface-based proxy of [" + CounterApi.class.getName() + "]")
                    .contains("[count] have none")
                    .doesNotContain("limited"));
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void twoInstancesEachWithItsOwnProxyClass_sharedBackend_oneWindow(
      JaxrsServers.Implementation runtime) {
    RateLimiterFactory memory = RateLimiterFactory.inMemory(ticker, 1_000);
    Map<String, KeyedRateLimiter<String>> byName = new ConcurrentHashMap<>();
    // a backend shared by the instances, keyed by rule name, as Redis is
    RateLimiterFactory shared =
        (name, limits, countRefused) ->
            byName.computeIfAbsent(name, n -> memory.create(n, limits, countRefused));
    JaxrsServers.Running one = start(runtime, byteBuddy(), shared);
    JaxrsServers.Running other = start(runtime, byteBuddy(), shared);

    HttpResponse<String> first = Http.get(one.uri("/till"));
    HttpResponse<String> second = Http.get(other.uri("/till"));
    HttpResponse<String> third = Http.get(one.uri("/till"));

    assertThat(List.of(first.statusCode(), second.statusCode()))
        .as("the first two in the hour, one to each instance")
        .containsExactly(200, 200);
    assertThat(third.statusCode())
        .as("the third in the hour, whichever instance it reaches (rules %s)", byName.keySet())
        .isEqualTo(429);
  }
}
