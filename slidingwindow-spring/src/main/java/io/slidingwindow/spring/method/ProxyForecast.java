package io.slidingwindow.spring.method;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.springframework.aop.framework.AbstractAdvisingBeanPostProcessor;
import org.springframework.aop.framework.ProxyConfig;
import org.springframework.aop.framework.ProxyProcessorSupport;
import org.springframework.aop.framework.autoproxy.AutoProxyUtils;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.beans.factory.support.AbstractBeanFactory;

/**
 * The proxies a bean not made yet may be called through, told before it is made so that start-up
 * can refuse a {@code @RateLimit} method that none of them reaches. The first post-processor that
 * proxies the bean decides the proxy's kind: the {@code @RateLimit} post-processor adds its advice
 * to that proxy, or wraps it if it is frozen or opaque. The post-processors that run before it are
 * asked in turn: an advising one ({@code @EnableAsync}'s, whose proxy is not frozen nor opaque)
 * tells exactly whether it proxies a bean of a class, and how ({@link
 * AbstractAdvisingBeanPostProcessor#determineBeanType}), and if it does, it decides; an auto-proxy
 * creator cannot be asked without changing what it does when the bean is made, so each kind it may
 * make is possible, and so is the kind of the next ones. If none decides, the {@code @RateLimit}
 * post-processor's own proxy does. A method is refused at start-up only if no possible proxy
 * reaches it; the bean's creation checks the proxy it gets. Stateless.
 */
final class ProxyForecast {

  /**
   * A proxy a bean may be called through: interface-based with {@code interfaces}, or class-based
   * if that is null; {@code foreign} if another post-processor makes it.
   */
  record Kind(Class<?>[] interfaces, boolean foreign) {}

  private ProxyForecast() {}

  /**
   * The proxies the bean {@code name} of class {@code type} may be called through, in the order the
   * post-processors run, at least one.
   *
   * @param processor the {@code @RateLimit} post-processor
   * @param interfaces the interfaces of a proxy made as a post-processor's configuration says for a
   *     bean of {@code type}, or null if it is class-based
   */
  static List<Kind> kinds(
      ProxyProcessorSupport processor,
      ConfigurableListableBeanFactory factory,
      Class<?> type,
      String name,
      Function<ProxyConfig, Class<?>[]> interfaces) {
    List<Kind> kinds = new ArrayList<>();
    List<BeanPostProcessor> processors =
        factory instanceof AbstractBeanFactory beans ? beans.getBeanPostProcessors() : List.of();
    for (BeanPostProcessor other : processors) {
      if (other == processor) {
        break; // those after it find its proxy, and add to it or wrap it
      }
      if (!(other instanceof ProxyProcessorSupport support)) {
        continue;
      }
      if (other instanceof AbstractAdvisingBeanPostProcessor advising
          && !support.isFrozen()
          && !support.isOpaque()) {
        Class<?> made = advising.determineBeanType(type, name);
        if (made != type) {
          kinds.add(new Kind(Proxy.isProxyClass(made) ? made.getInterfaces() : null, true));
          return kinds;
        }
        continue;
      }
      Class<?>[] exposed = support.isProxyTargetClass() ? null : interfaces.apply(support);
      kinds.add(new Kind(exposed, true));
      if (exposed != null && AutoProxyUtils.shouldProxyTargetClass(factory, name)) {
        kinds.add(new Kind(null, true));
      }
    }
    kinds.add(new Kind(interfaces.apply(processor), false));
    return kinds;
  }
}
