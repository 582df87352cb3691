package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Ticker;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.servlet.RateLimitEnforcer;
import io.slidingwindow.servlet.RateLimitFilter;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.boot.internal.CleaningRateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import io.slidingwindow.webmvc.RateLimitInterceptor;
import jakarta.servlet.DispatcherType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.web.servlet.DispatcherServletAutoConfiguration;
import org.springframework.boot.autoconfigure.web.servlet.WebMvcAutoConfiguration;
import org.springframework.boot.test.context.ConfigDataApplicationContextInitializer;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

class SlidingWindowAutoConfigurationTest {

  private final WebApplicationContextRunner runner =
      new WebApplicationContextRunner()
          .withConfiguration(AutoConfigurations.of(SlidingWindowAutoConfiguration.class));

  private static final String RULE = "slidingwindow.http.rules.product";

  @Test
  void autoConfiguration_noUserBeans_usesInMemoryBackendAndSystemClock() {
    runner
        .withPropertyValues(
            RULE + ".paths=/v1/product/**",
            RULE + ".limits[0].permits=2",
            RULE + ".limits[0].window=1m")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Ticker.class)).isSameAs(Ticker.system());
              assertThat(context).hasSingleBean(RateLimiterFactory.class);
              assertThat(context).hasSingleBean(RateLimitEnforcer.class);
              assertThat(context).hasSingleBean(RateLimitInterceptor.class);
              assertThat(context).hasBean("slidingWindowRateLimitFilter");
              assertThat(context).doesNotHaveBean(RateLimitListener.class);
              KeyedRateLimiter<String> limiter =
                  context
                      .getBean(RateLimiterFactory.class)
                      .create("x", List.of(Limit.of(2, Duration.ofMinutes(1))), false);
              assertThat(limiter.tryAcquire("k")).isTrue();
              assertThat(limiter.tryAcquire("k")).isTrue();
              assertThat(limiter.tryAcquire("k")).isFalse();
              assertThat(context.getBean(RateLimitEnforcer.class).rules())
                  .extracting(HttpRule::name)
                  .containsExactly("product");
            });
  }

  @Test
  void properties_perUrlWindowsExample_bindsThreeLimitsOnOneUrl() {
    runner
        .withPropertyValues(
            "slidingwindow.http.rules.v1-product.paths[0]=/v1/product",
            "slidingwindow.http.rules.v1-product.key=global",
            "slidingwindow.http.rules.v1-product.limits[0].permits=500",
            "slidingwindow.http.rules.v1-product.limits[0].window=2s",
            "slidingwindow.http.rules.v1-product.limits[1].permits=2000",
            "slidingwindow.http.rules.v1-product.limits[1].window=10s",
            "slidingwindow.http.rules.v1-product.limits[2].permits=10000",
            "slidingwindow.http.rules.v1-product.limits[2].window=60s")
        .run(
            context -> {
              HttpRule rule = context.getBean(RateLimitEnforcer.class).rules().get(0);
              assertThat(rule.name()).isEqualTo("v1-product");
              assertThat(rule.limits())
                  .containsExactly(
                      Limit.of(500, Duration.ofSeconds(2)),
                      Limit.of(2000, Duration.ofSeconds(10)),
                      Limit.of(10000, Duration.ofSeconds(60)));
              assertThat(rule.matches("GET", "/v1/product")).isTrue();
              assertThat(rule.matches("GET", "/v2/product")).isFalse();
              assertThat(rule.countRefusedAttempts()).isFalse();
              assertThat(rule.dryRun()).isFalse();
            });
  }

  @Test
  void applicationYml_perUrlWindowsExample_bindsInOrder() {
    runner
        .withInitializer(new ConfigDataApplicationContextInitializer())
        .withPropertyValues("spring.config.location=classpath:per-url-windows.yml")
        .run(
            context -> {
              List<HttpRule> rules = context.getBean(RateLimitEnforcer.class).rules();
              assertThat(rules).extracting(HttpRule::name).containsExactly("v1-product", "login");
              assertThat(rules.get(0).limits())
                  .containsExactly(
                      Limit.of(500, Duration.ofSeconds(2)),
                      Limit.of(2000, Duration.ofSeconds(10)),
                      Limit.of(10000, Duration.ofSeconds(60)));
              assertThat(rules.get(1).limits()).containsExactly(Limit.of(5, Duration.ofMinutes(1)));
              assertThat(rules.get(1).countRefusedAttempts()).isTrue();
              assertThat(rules.get(1).matches("POST", "/login")).isTrue();
              assertThat(rules.get(1).matches("GET", "/login")).isFalse();
            });
  }

  @Test
  void properties_precisionMethodsPenaltyAndDryRun_reachTheRule() {
    runner
        .withPropertyValues(
            "slidingwindow.http.dry-run=true",
            RULE + ".methods=get,POST",
            RULE + ".count-refused-attempts=true",
            RULE + ".limits[0].permits=5",
            RULE + ".limits[0].window=60s",
            RULE + ".limits[0].precision=1s",
            "slidingwindow.http.rules.other.dry-run=false",
            "slidingwindow.http.rules.other.limits[0].permits=1",
            "slidingwindow.http.rules.other.limits[0].window=1s")
        .run(
            context -> {
              List<HttpRule> rules = context.getBean(RateLimitEnforcer.class).rules();
              HttpRule product = rules.get(0);
              assertThat(product.limits())
                  .containsExactly(
                      Limit.of(5, Duration.ofSeconds(60)).withPrecision(Duration.ofSeconds(1)));
              assertThat(product.methods()).containsExactlyInAnyOrder("GET", "POST");
              assertThat(product.countRefusedAttempts()).isTrue();
              assertThat(product.dryRun()).as("inherits the global dry-run").isTrue();
              assertThat(rules.get(1).dryRun()).as("its own setting wins").isFalse();
            });
  }

  /**
   * Runs one GET through {@code enforcer}, with the header pairs given, and returns the status it
   * set (200 if none).
   */
  private static int get(RateLimitEnforcer enforcer, String path, String... headers)
      throws Exception {
    MockHttpServletRequest request = new MockHttpServletRequest("GET", path);
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.addHeader(headers[i], headers[i + 1]);
    }
    MockHttpServletResponse response = new MockHttpServletResponse();
    enforcer.enforce(request, response);
    return response.getStatus();
  }

  private static double count(MeterRegistry registry, String rule, String outcome) {
    return registry
        .get(MicrometerRateLimitListener.METRIC)
        .tags("rule", rule, "outcome", outcome, "mode", "enforce")
        .counter()
        .count();
  }

  @Test
  void meterRegistryPresent_countersCountEachDecision() {
    runner
        .withBean(SimpleMeterRegistry.class)
        .withPropertyValues(RULE + ".limits[0].permits=2", RULE + ".limits[0].window=1m")
        .run(
            context -> {
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(count(registry, "product", "allowed"))
                  .as("registered at start-up")
                  .isZero();
              RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
              assertThat(get(enforcer, "/a")).isEqualTo(200);
              assertThat(get(enforcer, "/a")).isEqualTo(200);
              assertThat(get(enforcer, "/a")).isEqualTo(429);
              assertThat(count(registry, "product", "allowed")).isEqualTo(2);
              assertThat(count(registry, "product", "refused")).isEqualTo(1);
              assertThat(count(registry, "product", "errored")).isZero();
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class UserBeans {
    static final FakeTicker TICKER = new FakeTicker();
    static final List<String> CREATED = new ArrayList<>();

    @Bean
    Ticker myTicker() {
      return TICKER;
    }

    @Bean
    RateLimiterFactory myFactory() {
      return (name, limits, countRefused) -> {
        CREATED.add(name);
        return KeyedRateLimiter.builder().limits(limits).ticker(TICKER).build();
      };
    }

    static final List<String> EVENTS = new CopyOnWriteArrayList<>();

    @Bean
    RateLimitListener myListener() {
      return new RateLimitListener() {
        @Override
        public void onAllowed(HttpRule rule, Decision decision) {
          EVENTS.add(rule.name() + " allowed");
        }

        @Override
        public void onRefused(HttpRule rule, Decision decision, boolean dryRun) {
          EVENTS.add(rule.name() + " refused");
        }
      };
    }

    @Bean
    ClientIpResolver myClientIp() {
      return ClientIpResolver.trusting(List.of("10.0.0.0/8"));
    }

    @Bean
    MeterRegistry registry() {
      return new SimpleMeterRegistry();
    }
  }

  @Test
  void userBeans_autoConfigurationBacksOffAndListenersAddUp() {
    runner
        .withUserConfiguration(UserBeans.class)
        .withPropertyValues(RULE + ".limits[0].permits=1", RULE + ".limits[0].window=1s")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context.getBean(Ticker.class)).isSameAs(UserBeans.TICKER);
              assertThat(context).hasSingleBean(RateLimiterFactory.class).hasBean("myFactory");
              assertThat(context).hasSingleBean(ClientIpResolver.class).hasBean("myClientIp");
              assertThat(context).doesNotHaveBean("slidingWindowRateLimiterFactory");
              assertThat(UserBeans.CREATED).contains("product");
              // The application's listener is told, and the Micrometer counters still count.
              UserBeans.EVENTS.clear();
              RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
              assertThat(get(enforcer, "/a")).isEqualTo(200);
              assertThat(get(enforcer, "/a")).isEqualTo(429);
              assertThat(UserBeans.EVENTS).containsExactly("product allowed", "product refused");
              MeterRegistry registry = context.getBean(MeterRegistry.class);
              assertThat(count(registry, "product", "allowed")).isEqualTo(1);
              assertThat(count(registry, "product", "refused")).isEqualTo(1);
            });
  }

  @Test
  void userMicrometerListener_isNotDoubled() {
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    runner
        .withBean(SimpleMeterRegistry.class, () -> registry)
        .withBean(
            MicrometerRateLimitListener.class, () -> new MicrometerRateLimitListener(registry))
        .withPropertyValues(RULE + ".limits[0].permits=1", RULE + ".limits[0].window=1m")
        .run(
            context -> {
              assertThat(get(context.getBean(RateLimitEnforcer.class), "/a")).isEqualTo(200);
              assertThat(count(registry, "product", "allowed")).isEqualTo(1);
            });
  }

  private static RateLimitEnforcer enforcerWithRule(String name) {
    return RateLimitEnforcer.builder()
        .rule(HttpRule.builder(name).limit(Limit.of(1, Duration.ofSeconds(1))).build())
        .build();
  }

  @Test
  void userEnforcerAlone_autoEnforcerBacksOffAndTheFilterUsesIt() {
    RateLimitEnforcer mine = enforcerWithRule("mine");
    runner
        .withBean("myEnforcer", RateLimitEnforcer.class, () -> mine)
        .withPropertyValues(RULE + ".limits[0].permits=1", RULE + ".limits[0].window=1s")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(RateLimitEnforcer.class);
              assertThat(context.getBean(RateLimitEnforcer.class)).isSameAs(mine);
              assertThat(context).doesNotHaveBean("slidingWindowRateLimitEnforcer");
              FilterRegistrationBean<?> registration =
                  context.getBean("slidingWindowRateLimitFilter", FilterRegistrationBean.class);
              assertThat(((RateLimitFilter) registration.getFilter()).enforcer()).isSameAs(mine);
            });
  }

  @Test
  void userFilterAlone_autoRegistrationBacksOffAndTheEnforcerStays() {
    RateLimitFilter mine = new RateLimitFilter(enforcerWithRule("mine"));
    runner
        .withBean("myFilter", RateLimitFilter.class, () -> mine)
        .withPropertyValues(RULE + ".limits[0].permits=1", RULE + ".limits[0].window=1s")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean("slidingWindowRateLimitFilter");
              assertThat(context.getBeansOfType(FilterRegistrationBean.class)).isEmpty();
              assertThat(context).hasBean("slidingWindowRateLimitEnforcer");
              assertThat(context.getBean(RateLimitEnforcer.class).rules())
                  .extracting(HttpRule::name)
                  .containsExactly("product");
            });
  }

  @Configuration(proxyBeanMethods = false)
  static class UserRegistration {
    @Bean
    FilterRegistrationBean<RateLimitFilter> myRegistration() {
      return new FilterRegistrationBean<>(new RateLimitFilter(enforcerWithRule("mine")));
    }
  }

  @Test
  void userFilterRegistrationAlone_autoRegistrationBacksOff() {
    runner
        .withUserConfiguration(UserRegistration.class)
        .withPropertyValues(RULE + ".limits[0].permits=1", RULE + ".limits[0].window=1s")
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).doesNotHaveBean("slidingWindowRateLimitFilter");
              assertThat(context.getBeansOfType(FilterRegistrationBean.class))
                  .containsOnlyKeys("myRegistration");
            });
  }

  @Test
  void userInterceptorAlone_autoInterceptorBacksOff() {
    RateLimitInterceptor mine = RateLimitInterceptor.builder().build();
    runner
        .withBean("myInterceptor", RateLimitInterceptor.class, () -> mine)
        .run(
            context -> {
              assertThat(context).hasNotFailed();
              assertThat(context).hasSingleBean(RateLimitInterceptor.class);
              assertThat(context.getBean(RateLimitInterceptor.class)).isSameAs(mine);
              assertThat(context).hasSingleBean(RateLimitEnforcer.class);
            });
  }

  @Test
  void userTickerAlone_limitersUseIt() {
    FakeTicker ticker = new FakeTicker();
    runner
        .withBean("myTicker", Ticker.class, () -> ticker)
        .withPropertyValues(RULE + ".limits[0].permits=1", RULE + ".limits[0].window=1s")
        .run(
            context -> {
              assertThat(context).hasSingleBean(Ticker.class);
              RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
              assertThat(get(enforcer, "/a")).isEqualTo(200);
              assertThat(get(enforcer, "/a")).isEqualTo(429);
              ticker.advance(Duration.ofSeconds(2));
              assertThat(get(enforcer, "/a")).as("time moved by the user's ticker").isEqualTo(200);
            });
  }

  @Test
  void userClientIpResolverAlone_rulesUseIt() {
    ClientIpResolver mine = ClientIpResolver.trusting(List.of("127.0.0.1"));
    runner
        .withBean("myClientIp", ClientIpResolver.class, () -> mine)
        .withPropertyValues(RULE + ".limits[0].permits=1", RULE + ".limits[0].window=1m")
        .run(
            context -> {
              assertThat(context).hasSingleBean(ClientIpResolver.class);
              RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
              // The MockHttpServletRequest peer is 127.0.0.1, trusted only by the user's bean: each
              // forwarded client has a permit of its own.
              assertThat(get(enforcer, "/a", "X-Forwarded-For", "198.51.100.1")).isEqualTo(200);
              assertThat(get(enforcer, "/a", "X-Forwarded-For", "198.51.100.2")).isEqualTo(200);
              assertThat(get(enforcer, "/a", "X-Forwarded-For", "198.51.100.1")).isEqualTo(429);
            });
  }

  @Test
  void userLimiterFactoryAlone_rulesUseIt() {
    List<String> created = new CopyOnWriteArrayList<>();
    RateLimiterFactory mine =
        (name, limits, countRefused) -> {
          created.add(name);
          return KeyedRateLimiter.builder().limits(limits).build();
        };
    runner
        .withBean("myFactory", RateLimiterFactory.class, () -> mine)
        .withPropertyValues(RULE + ".limits[0].permits=1", RULE + ".limits[0].window=1m")
        .run(
            context -> {
              assertThat(context).hasSingleBean(RateLimiterFactory.class);
              assertThat(context).doesNotHaveBean("slidingWindowRateLimiterFactory");
              assertThat(created).containsExactly("product");
            });
  }

  @RestController
  static class OverloadedController {
    @GetMapping("/one")
    @RateLimit(limits = "5/1s")
    String read() {
      return "one";
    }

    @GetMapping("/two")
    @RateLimit(limits = "5/1s")
    String read(@org.springframework.web.bind.annotation.RequestParam("q") String q) {
      return q;
    }
  }

  @RestController
  static class ProductController {
    @GetMapping("/p")
    @RateLimit(limits = "5/1s", name = "product")
    String product() {
      return "p";
    }
  }

  private WebApplicationContextRunner mvcRunner() {
    return new WebApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                SlidingWindowAutoConfiguration.class,
                WebMvcAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class));
  }

  @Test
  void annotations_sameDefaultName_failAtStartupNamingBoth() {
    mvcRunner()
        .withUserConfiguration(OverloadedController.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              String where = "@RateLimit on " + OverloadedController.class.getName() + ".read(";
              assertThat(messages(context.getStartupFailure()))
                  .contains("'OverloadedController.read'")
                  .contains(where + ")")
                  .contains(where + "String)");
            });
  }

  @Test
  void annotationAndFilterRule_sameName_failAtStartupNamingBoth() {
    mvcRunner()
        .withUserConfiguration(ProductController.class)
        .withPropertyValues(RULE + ".limits[0].permits=1", RULE + ".limits[0].window=1m")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(messages(context.getStartupFailure()))
                  .contains("'product'")
                  .contains("the filter's rule 'product'")
                  .contains("@RateLimit on " + ProductController.class.getName() + ".product()");
            });
  }

  @Test
  void userInterceptor_annotationAndFilterRuleSameName_stillFailAtStartup() {
    mvcRunner()
        .withUserConfiguration(ProductController.class)
        .withBean(
            "myInterceptor",
            RateLimitInterceptor.class,
            () -> RateLimitInterceptor.builder().build())
        .withPropertyValues(RULE + ".limits[0].permits=1", RULE + ".limits[0].window=1m")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(messages(context.getStartupFailure()))
                  .contains("the filter's rule 'product'")
                  .contains("@RateLimit on " + ProductController.class.getName() + ".product()");
            });
  }

  @Test
  void filterDispatcherTypes_default_requestsAlone_andAsConfigured() {
    runner
        .withPropertyValues(RULE + ".limits[0].permits=1", RULE + ".limits[0].window=1m")
        .run(
            context ->
                assertThat(
                        context
                            .getBean("slidingWindowRateLimitFilter", FilterRegistrationBean.class)
                            .determineDispatcherTypes())
                    .containsExactly(DispatcherType.REQUEST));
    runner
        .withPropertyValues(
            RULE + ".limits[0].permits=1",
            RULE + ".limits[0].window=1m",
            "slidingwindow.http.filter-dispatcher-types=request,error,async")
        .run(
            context ->
                assertThat(
                        context
                            .getBean("slidingWindowRateLimitFilter", FilterRegistrationBean.class)
                            .determineDispatcherTypes())
                    .containsExactlyInAnyOrder(
                        DispatcherType.REQUEST, DispatcherType.ERROR, DispatcherType.ASYNC));
  }

  @Test
  void filterDispatcherTypes_withoutRequest_stopStartUpNamingTheProperty() {
    runner
        .withPropertyValues(
            RULE + ".limits[0].permits=1",
            RULE + ".limits[0].window=1m",
            "slidingwindow.http.filter-dispatcher-types=error")
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(messages(context.getStartupFailure()))
                  .contains(
                      "slidingwindow.http.filter-dispatcher-types must include REQUEST, the"
                          + " client's own request, or no request is limited; was [ERROR]");
            });
  }

  private static String messages(Throwable failure) {
    StringBuilder messages = new StringBuilder();
    for (Throwable t = failure; t != null; t = t.getCause()) {
      messages.append(t.getMessage()).append('\n');
    }
    return messages.toString();
  }

  @Test
  void keyBean_isUsedByTheRule() {
    KeyResolver tenant = request -> "tenant:" + request.getHeader("X-Tenant");
    runner
        .withBean("tenantKey", KeyResolver.class, () -> tenant)
        .withPropertyValues(
            RULE + ".key=bean:tenantKey",
            RULE + ".limits[0].permits=1",
            RULE + ".limits[0].window=1s")
        .run(
            context -> {
              RateLimitEnforcer enforcer = context.getBean(RateLimitEnforcer.class);
              assertThat(get(enforcer, "/a", "X-Tenant", "a")).isEqualTo(200);
              assertThat(get(enforcer, "/a", "X-Tenant", "b")).isEqualTo(200);
              assertThat(get(enforcer, "/a", "X-Tenant", "a"))
                  .as("tenant a's own key, from the bean")
                  .isEqualTo(429);
            });
  }

  @Test
  void disabled_installsNothing() {
    runner
        .withPropertyValues("slidingwindow.http.enabled=false")
        .run(
            context -> {
              assertThat(context).doesNotHaveBean(RateLimitEnforcer.class);
              assertThat(context).doesNotHaveBean("slidingWindowRateLimitFilter");
            });
  }

  private void assertStartupFails(String expectedMessage, String... properties) {
    runner
        .withPropertyValues(properties)
        .run(
            context -> {
              assertThat(context).hasFailed();
              Throwable failure = context.getStartupFailure();
              StringBuilder messages = new StringBuilder();
              for (Throwable t = failure; t != null; t = t.getCause()) {
                messages.append(t.getMessage()).append('\n');
              }
              assertThat(messages.toString()).contains(expectedMessage);
            });
  }

  @Test
  void badConfig_ruleWithoutLimits_failsNamingTheProperty() {
    assertStartupFails(
        "slidingwindow.http.rules.product: limits: rule 'product' needs at least one limit",
        RULE + ".paths=/v1/product");
  }

  @Test
  void badConfig_unparsableWindow_failsNamingTheProperty() {
    assertStartupFails(
        "slidingwindow.http.rules.product.limits[0].window",
        RULE + ".limits[0].permits=5",
        RULE + ".limits[0].window=two seconds");
  }

  @Test
  void badConfig_negativeCount_failsNamingThePropertyAndValue() {
    assertStartupFails(
        "slidingwindow.http.rules.product.limits[0].permits: permits must be positive, was -5",
        RULE + ".limits[0].permits=-5",
        RULE + ".limits[0].window=2s");
  }

  @Test
  void badConfig_zeroPermitsOrZeroWindow_failsWithThePathAndLimitsOwnMessage() {
    assertStartupFails(
        "slidingwindow.http.rules.product.limits[0].permits: permits must be positive, was 0",
        RULE + ".limits[0].permits=0",
        RULE + ".limits[0].window=2s");
    assertStartupFails(
        "slidingwindow.http.rules.product.limits[0].window: window must be positive, was PT0S",
        RULE + ".limits[0].permits=5",
        RULE + ".limits[0].window=0s");
  }

  @Test
  void cleanupInterval_byDefault_isScheduledAndStopsWithTheContext() {
    CleaningRateLimiterFactory[] seen = new CleaningRateLimiterFactory[1];
    runner.run(
        context -> {
          assertThat(context.getBean(RateLimiterFactory.class))
              .isInstanceOf(CleaningRateLimiterFactory.class);
          seen[0] = (CleaningRateLimiterFactory) context.getBean(RateLimiterFactory.class);
          assertThat(seen[0].scheduled()).isTrue();
        });
    assertThat(seen[0].scheduled()).as("after the context closed").isFalse();
  }

  @Test
  void cleanupInterval_zero_schedulesNothing() {
    runner
        .withPropertyValues("slidingwindow.http.cleanup-interval=0")
        .run(
            context ->
                assertThat(
                        ((CleaningRateLimiterFactory) context.getBean(RateLimiterFactory.class))
                            .scheduled())
                    .isFalse());
  }

  @Test
  void badConfig_negativeCleanupInterval_failsWithThePath() {
    assertStartupFails(
        "slidingwindow.http.cleanup-interval: cleanupInterval must be zero (off) or positive, was"
            + " PT-1S",
        "slidingwindow.http.cleanup-interval=-1s");
  }

  @Test
  void badConfig_maxKeysPerRuleOutOfRange_failsWithThePathAndTheBuildersMessage() {
    assertStartupFails(
        "slidingwindow.http.max-keys-per-rule: maxKeys must be between 1 and 2147483647, was 0",
        "slidingwindow.http.max-keys-per-rule=0");
  }

  @Test
  void badConfig_missingWindowOrBadPrecision_failsNamingTheProperty() {
    assertStartupFails(
        "slidingwindow.http.rules.product.limits[0].window: window must not be null",
        RULE + ".limits[0].permits=5");
    assertStartupFails(
        "slidingwindow.http.rules.product.limits[0].precision: precision must not exceed the window",
        RULE + ".limits[0].permits=5",
        RULE + ".limits[0].window=2s",
        RULE + ".limits[0].precision=3s");
  }

  @Test
  void badConfig_badKeyPathOrProxy_failsNamingTheProperty() {
    assertStartupFails(
        "slidingwindow.http.rules.product.key must be ip, principal, global, header:NAME, bean:NAME"
            + " or a key expression, was 'cookie': 'cookie' is not one of",
        RULE + ".key=cookie",
        RULE + ".limits[0].permits=5",
        RULE + ".limits[0].window=2s");
    assertStartupFails(
        "slidingwindow.http.rules.product.paths[0]: ",
        RULE + ".paths=v1/product",
        RULE + ".limits[0].permits=5",
        RULE + ".limits[0].window=2s");
    assertStartupFails(
        "slidingwindow.http.trusted-proxies: ", "slidingwindow.http.trusted-proxies=10.0.0.0/40");
  }

  @Test
  void badConfig_ipv6PrefixLengthOutside1To128_failsNamingThePropertyAndValue() {
    assertStartupFails(
        "slidingwindow.http.ipv6-prefix-length: ipv6PrefixLength must be 1..128, was 0",
        "slidingwindow.http.ipv6-prefix-length=0");
    assertStartupFails(
        "slidingwindow.http.ipv6-prefix-length: ipv6PrefixLength must be 1..128, was 129",
        "slidingwindow.http.ipv6-prefix-length=129");
  }

  @Test
  void ipv6PrefixLength_defaultsTo64AndIsBound() {
    runner.run(
        context ->
            assertThat(context.getBean(ClientIpResolver.class).ipv6PrefixLength()).isEqualTo(64));
    runner
        .withPropertyValues("slidingwindow.http.ipv6-prefix-length=48")
        .run(
            context -> {
              MockHttpServletRequest request = new MockHttpServletRequest("GET", "/a");
              request.setRemoteAddr("2001:db8:1:ffff::1");
              assertThat(context.getBean(ClientIpResolver.class).key(request).value())
                  .isEqualTo("ip:2001:db8:1:0:0:0:0:0/48");
            });
  }

  @RestController
  static class BadKeyController {
    @GetMapping("/bad-key")
    @RateLimit(limits = "5/1s", key = "header('X-Api-Key') ?: clientAddress")
    String bad() {
      return "bad";
    }
  }

  @Test
  void badAnnotationKey_failsAtStartupNamingTheMethodAndTheName() {
    new WebApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                SlidingWindowAutoConfiguration.class,
                WebMvcAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class))
        .withUserConfiguration(BadKeyController.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasMessageContaining(
                      "@RateLimit on " + BadKeyController.class.getName() + ".bad")
                  .hasMessageContaining("'clientAddress' is not one of");
            });
  }

  @RestController
  static class BadController {
    @GetMapping("/bad")
    @RateLimit(limits = "5 per second")
    String bad() {
      return "bad";
    }
  }

  @Test
  void badAnnotation_failsAtStartupNamingTheMethod() {
    new WebApplicationContextRunner()
        .withConfiguration(
            AutoConfigurations.of(
                SlidingWindowAutoConfiguration.class,
                WebMvcAutoConfiguration.class,
                DispatcherServletAutoConfiguration.class))
        .withUserConfiguration(BadController.class)
        .run(
            context -> {
              assertThat(context).hasFailed();
              assertThat(context.getStartupFailure())
                  .hasMessageContaining("@RateLimit on " + BadController.class.getName() + ".bad")
                  .hasMessageContaining("5 per second");
            });
  }
}
