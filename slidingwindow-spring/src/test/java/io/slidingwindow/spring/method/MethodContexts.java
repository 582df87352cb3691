package io.slidingwindow.spring.method;

import io.slidingwindow.Decision;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.testkit.FakeTicker;
import java.beans.Introspector;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;

/** Real application contexts for the tests: the post-processor, in memory on a fake ticker. */
final class MethodContexts {

  final FakeTicker ticker = new FakeTicker(1_000_000_000L);
  final List<String> events = new CopyOnWriteArrayList<>();

  final RateLimitListener listener =
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
          events.add("error " + rule.name());
        }
      };

  private boolean proxyTargetClass;

  /** The backend the post-processor decides through; null for the in-memory one on the ticker. */
  RateLimiterFactory factory;

  /**
   * What {@code call} gave: its value as text, or the simple name of what it threw (the cause of a
   * {@code CompletionException}).
   */
  static String outcome(Supplier<?> call) {
    try {
      return String.valueOf(call.get());
    } catch (RuntimeException e) {
      Throwable cause = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
      return cause.getClass().getSimpleName();
    }
  }

  /** The context's class loader, where its proxy classes are defined; null for the default. */
  ClassLoader classLoader;

  /** Objects registered as singletons, ready-made, before the context starts. */
  final Map<String, Object> readyMade = new LinkedHashMap<>();

  /** Class-based proxies, as the starter makes them, instead of the interface-based default. */
  MethodContexts classProxies() {
    proxyTargetClass = true;
    return this;
  }

  /** A started context with the post-processor and {@code beans}, each registered by class. */
  AnnotationConfigApplicationContext start(Class<?>... beans) {
    AnnotationConfigApplicationContext context = new AnnotationConfigApplicationContext();
    if (classLoader != null) {
      context.setClassLoader(classLoader);
    }
    context.registerBean(
        "rateLimitMethods",
        RateLimitMethodPostProcessor.class,
        () -> {
          RateLimitMethodPostProcessor processor =
              new RateLimitMethodPostProcessor(
                  () -> factory != null ? factory : RateLimiterFactory.inMemory(ticker, 10_000),
                  () -> listener);
          processor.setProxyTargetClass(proxyTargetClass);
          return processor;
        });
    readyMade.forEach(context.getBeanFactory()::registerSingleton);
    for (Class<?> bean : beans) {
      context.registerBean(Introspector.decapitalize(bean.getSimpleName()), bean);
    }
    context.refresh();
    return context;
  }
}
