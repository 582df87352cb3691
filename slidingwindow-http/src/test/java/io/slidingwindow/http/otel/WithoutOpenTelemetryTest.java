package io.slidingwindow.http.otel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Limit;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.QuotaHeaders;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RequestKey;
import java.net.URL;
import java.net.URLClassLoader;
import java.time.Duration;
import java.util.List;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * Runs the HTTP enforcement in a class loader that has this module, the core and these tests, but
 * not the OpenTelemetry API: nothing but the listener of this package may need it.
 */
class WithoutOpenTelemetryTest {

  /** Builds an enforcer with a listener and refuses the third of three requests. */
  public static final class Probe implements Supplier<String> {
    @Override
    public String get() {
      EnforcementCore<String> core =
          EnforcementCore.<String>builder()
              .listener(RateLimitListener.composite(List.of(RateLimitListener.NONE)))
              .rateLimitHeaders(true)
              .rule(
                  HttpRule.builder("r").limit(Limit.of(2, Duration.ofMinutes(1))).build(),
                  RequestKey::custom)
              .build();
      StringBuilder statuses = new StringBuilder();
      for (int i = 0; i < 3; i++) {
        EnforcementCore.Outcome outcome = core.enforce("k", "GET", List.of("/"), QuotaHeaders::new);
        statuses.append(outcome.allowed() ? "200 " : outcome.refusal().status() + " ");
      }
      return statuses.toString().trim();
    }
  }

  private static URL locationOf(Class<?> type) {
    return type.getProtectionDomain().getCodeSource().getLocation();
  }

  private static URLClassLoader withoutOpenTelemetry() {
    URL[] urls = {
      locationOf(EnforcementCore.class), locationOf(Limit.class), locationOf(Probe.class)
    };
    return new URLClassLoader(urls, ClassLoader.getPlatformClassLoader());
  }

  @Test
  void enforcement_withoutTheApi_loadsAndRefuses() throws Exception {
    try (URLClassLoader loader = withoutOpenTelemetry()) {
      assertThatThrownBy(() -> loader.loadClass("io.opentelemetry.api.OpenTelemetry"))
          .as("the loader must not see the API, or this test proves nothing")
          .isInstanceOf(ClassNotFoundException.class);

      @SuppressWarnings("unchecked")
      Supplier<String> probe =
          (Supplier<String>)
              loader.loadClass(Probe.class.getName()).getDeclaredConstructor().newInstance();

      assertThat(probe.get()).isEqualTo("200 200 429");
      assertThat(probe.getClass().getClassLoader()).isSameAs(loader);
    }
  }

  @Test
  void listener_withoutTheApi_failsToLoad() throws Exception {
    try (URLClassLoader loader = withoutOpenTelemetry()) {
      assertThatThrownBy(
              () -> Class.forName(OpenTelemetryRateLimitListener.class.getName(), true, loader))
          .isInstanceOf(NoClassDefFoundError.class)
          .hasMessageContaining("io/opentelemetry");
    }
  }
}
