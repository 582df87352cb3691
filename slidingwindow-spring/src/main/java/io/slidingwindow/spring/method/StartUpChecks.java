package io.slidingwindow.spring.method;

import java.lang.reflect.Method;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;

/**
 * The beans whose {@code @RateLimit} methods the post-processor would never limit, found by the end
 * of start-up so that they stop it rather than run unlimited in silence: a bean that Spring's
 * post-processors do not proxy ({@link AopInfrastructureBean}), and a singleton that the
 * post-processor was never shown because it was made before the post-processor was registered, for
 * a post-processor (or a bean one needs) that depends on it. Stateless.
 */
final class StartUpChecks {

  private StartUpChecks() {}

  /**
   * Checks that {@code bean}, an {@link AopInfrastructureBean} the post-processor does not advise,
   * has no {@code @RateLimit} method.
   *
   * @throws IllegalArgumentException naming {@code where}, the first such method and why
   */
  static void checkInfrastructure(String where, Object bean) {
    for (Method method : limitedMethods(where, bean)) {
      throw ProxyReach.neverApplied(
          where,
          method,
          "the bean is an "
              + AopInfrastructureBean.class.getName()
              + ", which Spring's post-processors never proxy; move the method to another bean");
    }
  }

  /**
   * Checks that no singleton of {@code factory} that the post-processor was not shown ({@code
   * shown} has the names of those it was) and that was made for a post-processor (one, or a bean
   * that one needs, depends on it) has a {@code @RateLimit} method. A singleton registered
   * ready-made (a test's mock, say) is left as it is.
   *
   * @param processor the post-processor, a singleton that is not shown itself
   * @throws IllegalArgumentException naming the first such bean, its method and why
   */
  static void checkUnseen(
      ConfigurableListableBeanFactory factory, Set<String> shown, Object processor) {
    for (String name : factory.getSingletonNames()) {
      if (shown.contains(name)) {
        continue;
      }
      Object singleton = factory.getSingleton(name);
      if (singleton == null
          || singleton == processor
          || singleton instanceof FactoryBean<?>
          || !madeForAPostProcessor(factory, name)) {
        continue;
      }
      String where = "bean '" + name + "'";
      for (Method method : limitedMethods(where, singleton)) {
        throw ProxyReach.neverApplied(
            where,
            method,
            "the bean was made before the @RateLimit post-processor was registered, for a"
                + " post-processor that needs it (or needs a bean that does), so it was never"
                + " proxied and no call of it is limited; let it be made later: where it is asked"
                + " for early, inject it lazily (ObjectProvider, @Lazy), or make the @Bean method"
                + " of that post-processor static");
      }
    }
  }

  /**
   * Whether a post-processor of beans or of the bean factory depends on the bean {@code name}, or
   * on a bean that does, and so on: why it was made before the post-processors were all there.
   */
  private static boolean madeForAPostProcessor(
      ConfigurableListableBeanFactory factory, String name) {
    Deque<String> next = new ArrayDeque<>(List.of(name));
    Set<String> visited = new HashSet<>(next);
    while (!next.isEmpty()) {
      for (String dependent : factory.getDependentBeans(next.pop())) {
        if (!visited.add(dependent)) {
          continue;
        }
        Class<?> type = factory.getType(dependent, false);
        if (type != null
            && (BeanPostProcessor.class.isAssignableFrom(type)
                || BeanFactoryPostProcessor.class.isAssignableFrom(type))) {
          return true;
        }
        next.add(dependent);
      }
    }
    return false;
  }

  /** The {@code @RateLimit} methods of {@code bean}, as the post-processor finds them. */
  private static Collection<Method> limitedMethods(String where, Object bean) {
    Class<?> implementer = InterfaceCalls.implementer(bean);
    if (!InterfaceCalls.exposesUnimplemented(bean, implementer)) {
      return MethodRules.annotated(AopUtils.getTargetClass(bean)).keySet();
    }
    Class<?>[] interfaces = AopProxyUtils.proxiedUserInterfaces(bean);
    Set<Method> found =
        new LinkedHashSet<>(InterfaceCalls.limited(where, interfaces, implementer).values());
    if (implementer != null) {
      found.addAll(MethodRules.annotated(implementer).keySet());
    }
    return found;
  }
}
