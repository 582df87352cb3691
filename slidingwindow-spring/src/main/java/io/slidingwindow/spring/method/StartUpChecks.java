package io.slidingwindow.spring.method;

import io.slidingwindow.spring.RateLimit;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import org.springframework.aop.framework.AopInfrastructureBean;
import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.aop.support.AopUtils;
import org.springframework.beans.BeansException;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.FactoryBean;
import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanDefinition;
import org.springframework.util.ClassUtils;

/**
 * What the post-processor checks of beans it is not shown while the application starts, so that a
 * bad {@code @RateLimit} stops start-up rather than a call later, or runs unlimited in silence: the
 * beans not made yet (lazy, prototypes, other scopes, repositories no bean uses), checked as their
 * creation will check them; a bean that Spring's post-processors do not proxy ({@link
 * AopInfrastructureBean}); and a singleton that the post-processor was never shown because it was
 * made before the post-processor was registered, for a post-processor (or a bean one needs) that
 * depends on it. Stateless.
 */
final class StartUpChecks {

  /** What every Spring Data repository factory implements. */
  private static final String REPOSITORY_FACTORY =
      "org.springframework.data.repository.core.support.RepositoryFactoryInformation";

  private static final String INFRASTRUCTURE =
      "the bean is an "
          + AopInfrastructureBean.class.getName()
          + ", which Spring's post-processors never proxy; move the method to another bean";

  private StartUpChecks() {}

  /**
   * Checks that {@code bean}, an {@link AopInfrastructureBean} the post-processor does not advise,
   * has no {@code @RateLimit} method.
   *
   * @throws IllegalArgumentException naming {@code where}, the first such method and why
   */
  static void checkInfrastructure(String where, Object bean) {
    for (Method method : limitedMethods(where, bean)) {
      throw ProxyReach.neverApplied(where, method, INFRASTRUCTURE);
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
   * Checks, as creating them will and without creating them, the {@code @RateLimit} methods of the
   * beans of {@code factory} that are not made yet (lazy singletons, prototypes, beans of other
   * scopes, and the objects of factory beans that nothing asked for, such as a Spring Data
   * repository no bean uses): their limits, names, keys and return types; the fallback and whether
   * the proxy can intercept the method too when the bean's class is known (a bean defined by its
   * class); a repository's fallback, which it has no class of the application's for.
   *
   * @param shown the names of the beans the post-processor was shown
   * @param proxyKinds the proxies a bean of a class, of a name, may be called through ({@link
   *     ProxyForecast})
   * @throws IllegalArgumentException naming the bean, the method and the attribute or why, as
   *     creating it would
   */
  static void checkUncreated(
      ConfigurableListableBeanFactory factory,
      Set<String> shown,
      MethodRules rules,
      BiFunction<Class<?>, String, List<ProxyForecast.Kind>> proxyKinds) {
    for (String name : factory.getBeanDefinitionNames()) {
      if (shown.contains(name)
          || (factory.containsSingleton(name)
              && !(factory.getSingleton(name) instanceof FactoryBean<?>))) {
        continue; // made, and checked when it was
      }
      BeanDefinition definition;
      Class<?> type;
      try {
        definition = factory.getMergedBeanDefinition(name);
        type = definition.isAbstract() ? null : factory.getType(name, false);
      } catch (BeansException | LinkageError e) {
        continue; // its creation will tell
      }
      if (type == null || Proxy.isProxyClass(type)) {
        continue;
      }
      String where = "bean '" + name + "'";
      if (type.isInterface()) {
        boolean repository = repository(factory, name);
        for (Method method :
            new LinkedHashSet<>(
                InterfaceCalls.limited(where, new Class<?>[] {type}, null).values())) {
          Class<?> declaring = method.getDeclaringClass();
          rules.create(
              where,
              declaring,
              null,
              method,
              LimitedMethods.annotation(method, declaring),
              repository);
        }
        continue;
      }
      type = ClassUtils.getUserClass(type);
      boolean exact =
          definition instanceof AbstractBeanDefinition defined
              && defined.hasBeanClass()
              && defined.getBeanClass() == type
              && defined.getFactoryMethodName() == null
              && defined.getInstanceSupplier() == null;
      Map<Method, RateLimit> found = MethodRules.annotated(type);
      List<ProxyForecast.Kind> kinds =
          exact && !found.isEmpty() ? proxyKinds.apply(type, name) : List.of();
      for (Map.Entry<Method, RateLimit> limited : found.entrySet()) {
        Method method = limited.getKey();
        rules.create(where, type, type, method, limited.getValue(), exact);
        String reason =
            !exact
                ? null
                : AopInfrastructureBean.class.isAssignableFrom(type)
                    ? INFRASTRUCTURE
                    : ProxyReach.missedBeforeProxy(type, method, kinds);
        if (reason != null) {
          throw ProxyReach.neverApplied(where, method, reason);
        }
      }
    }
  }

  /** Whether the bean {@code name} is made by a Spring Data repository factory. */
  private static boolean repository(ConfigurableListableBeanFactory factory, String name) {
    Class<?> maker = factory.getType(BeanFactory.FACTORY_BEAN_PREFIX + name, false);
    if (maker == null) {
      return false;
    }
    for (Class<?> implemented : ClassUtils.getAllInterfacesForClassAsSet(maker)) {
      if (implemented.getName().equals(REPOSITORY_FACTORY)) {
        return true;
      }
    }
    return false;
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
