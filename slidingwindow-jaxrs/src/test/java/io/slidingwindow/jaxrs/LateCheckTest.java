package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.testkit.LogCapture;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.core.Response;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What the feature does with a bad annotation the runtime shows it only after the application has
 * served its first request: it throws before, and after, binds a filter answering 500 to the
 * methods concerned, logging the failure once and checking the class once.
 */
class LateCheckTest {

  private final List<Object> registered = new ArrayList<>();
  private LogCapture logged;

  @BeforeEach
  void record() {
    logged = LogCapture.atConfiguredLevel(RateLimitFeature.class.getName());
  }

  @AfterEach
  void stopRecording() {
    logged.close();
  }

  /** A limit that cannot be read, and a good one. */
  static class Mixed {
    @GET
    @RateLimit(limits = "often")
    public void bad() {}

    @GET
    @RateLimit(limits = "1/1h")
    public void good() {}
  }

  /** An annotated plain method: no resource method of the class can be limited as meant. */
  static class Misplaced {
    @GET
    public void first() {}

    @GET
    public void second() {}

    @RateLimit(limits = "1/1h")
    public void helper() {}
  }

  private FeatureContext context(Set<Object> instances) {
    Configuration configuration =
        (Configuration)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {Configuration.class},
                (proxy, m, args) -> m.getName().equals("getInstances") ? instances : null);
    return (FeatureContext)
        Proxy.newProxyInstance(
            getClass().getClassLoader(),
            new Class<?>[] {FeatureContext.class},
            (proxy, m, args) -> {
              switch (m.getName()) {
                case "register" -> registered.add(args[0]);
                case "getConfiguration" -> {
                  return configuration;
                }
                default -> {}
              }
              return proxy;
            });
  }

  /** Starts {@code feature}, and returns the filter it registered that notes requests. */
  private ContainerRequestFilter start(RateLimitFeature feature) {
    feature.configure(context(Set.of()));
    assertThat(registered)
        .as("the serving mark, then the locator count's marker and itself")
        .hasSize(3);
    ContainerRequestFilter mark = (ContainerRequestFilter) registered.remove(0);
    registered.clear();
    return mark;
  }

  private void configure(RateLimitFeature feature, Class<?> type, String method) throws Exception {
    Method resourceMethod = type.getMethod(method);
    feature.configure(
        new ResourceInfo() {
          @Override
          public Method getResourceMethod() {
            return resourceMethod;
          }

          @Override
          public Class<?> getResourceClass() {
            return type;
          }
        },
        context(Set.of()));
  }

  @Test
  void beforeTheFirstRequest_badAnnotation_throws() throws Exception {
    RateLimitFeature feature = RateLimitFeature.builder().build();
    start(feature);

    assertThatThrownBy(() -> configure(feature, Mixed.class, "bad"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("often");
    assertThat(registered).isEmpty();
  }

  @Test
  void afterTheFirstRequest_unreadableLimit_thatMethodAnswers500_loggedOnce() throws Exception {
    RateLimitFeature feature = RateLimitFeature.builder().build();
    start(feature).filter(null);

    configure(feature, Mixed.class, "bad");
    configure(feature, Mixed.class, "bad");
    configure(feature, Mixed.class, "good");

    assertThat(registered).hasSize(3);
    assertThat(registered.get(0))
        .isInstanceOf(LateCheck.Unusable.class)
        .isSameAs(registered.get(1));
    assertThat(registered.get(2)).isInstanceOf(MethodRateLimitFilter.class);
    assertThat(logged.records()).hasSize(1);
    assertThat(logged.records().get(0).getMessage())
        .startsWith("@RateLimit on " + Mixed.class.getName() + ".bad: ")
        .contains("every request to " + Mixed.class.getName() + ".bad is answered 500");
    assertThat(logged.records().get(0).getThrown()).isNull();
  }

  @Test
  void afterTheFirstRequest_misplacedAnnotation_everyMethodOfTheClassAnswers500_loggedOnce()
      throws Exception {
    RateLimitFeature feature = RateLimitFeature.builder().build();
    start(feature).filter(null);

    configure(feature, Misplaced.class, "first");
    configure(feature, Misplaced.class, "second");
    configure(feature, Misplaced.class, "first");

    assertThat(registered).hasSize(3).allMatch(LateCheck.Unusable.class::isInstance);
    assertThat(logged.records()).hasSize(1);
    assertThat(logged.records().get(0).getMessage())
        .startsWith("@RateLimit on " + Misplaced.class.getName() + ".helper would limit nothing")
        .contains("the resource methods of " + Misplaced.class.getName() + " is answered 500");
  }

  @Test
  void unusable_answers500NamingNothing() {
    List<Response> answers = new ArrayList<>();
    ContainerRequestContext request =
        (ContainerRequestContext)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {ContainerRequestContext.class},
                (proxy, m, args) -> {
                  if (m.getName().equals("abortWith")) {
                    answers.add((Response) args[0]);
                  }
                  return null;
                });

    new LateCheck.Unusable().filter(request);

    assertThat(answers).hasSize(1);
    assertThat(answers.get(0).getStatus()).isEqualTo(500);
    assertThat(answers.get(0).getMediaType().toString()).startsWith("application/problem+json");
    assertThat((String) answers.get(0).getEntity())
        .isEqualTo("{\"type\":\"about:blank\",\"title\":\"Internal Server Error\",\"status\":500}");
  }
}
