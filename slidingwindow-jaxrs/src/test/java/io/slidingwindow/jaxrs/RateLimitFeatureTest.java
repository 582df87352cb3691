package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the feature makes of annotations when the application starts. */
class RateLimitFeatureTest {

  static class Resources {
    @RateLimit(limits = "2/10s")
    public void good() {}

    @RateLimit(limits = "2/10s", name = "good-copy")
    public void another() {}

    @RateLimit(limits = "2/10s", name = "good-copy")
    public void sameName() {}

    @RateLimit(limits = "two per second")
    public void badLimit() {}

    @RateLimit(limits = "2/10s", key = "resolver:nobody")
    public void unknownResolver() {}

    @RateLimit(limits = "2/10s", key = "cookie:x")
    public void unknownKey() {}

    public void plain() {}
  }

  private final List<Object> registered = new ArrayList<>();

  private void configure(RateLimitFeature feature, String methodName) throws Exception {
    Method method = Resources.class.getMethod(methodName);
    ResourceInfo info =
        new ResourceInfo() {
          @Override
          public Method getResourceMethod() {
            return method;
          }

          @Override
          public Class<?> getResourceClass() {
            return Resources.class;
          }
        };
    FeatureContext context =
        (FeatureContext)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {FeatureContext.class},
                (proxy, m, args) -> {
                  if (m.getName().equals("register")) {
                    registered.add(args[0]);
                  }
                  return proxy;
                });
    feature.configure(info, context);
  }

  @Test
  void configure_annotatedMethod_registersOneFilter_sameForEveryConfigure() throws Exception {
    RateLimitFeature feature = RateLimitFeature.builder().build();

    configure(feature, "good");
    configure(feature, "good");
    configure(feature, "plain");

    assertThat(registered).hasSize(2).allMatch(MethodRateLimitFilter.class::isInstance);
    assertThat(registered.get(0)).isSameAs(registered.get(1));
  }

  @Test
  void configure_nameTakenByAnotherMethod_failsNamingBoth() throws Exception {
    RateLimitFeature feature = RateLimitFeature.builder().build();
    configure(feature, "another");

    assertThatThrownBy(() -> configure(feature, "sameName"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'good-copy'")
        .hasMessageContaining("sameName")
        .hasMessageContaining("another");
  }

  @Test
  void configure_unreadableAnnotation_failsNamingTheMethodAndTheValue() {
    RateLimitFeature feature = RateLimitFeature.builder().build();

    assertThatThrownBy(() -> configure(feature, "badLimit"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("badLimit")
        .hasMessageContaining("two per second");
    assertThatThrownBy(() -> configure(feature, "unknownResolver"))
        .hasMessageContaining("unknownResolver")
        .hasMessageContaining("'nobody'");
    assertThatThrownBy(() -> configure(feature, "unknownKey"))
        .hasMessageContaining("unknownKey")
        .hasMessageContaining("cookie:x");
  }
}
