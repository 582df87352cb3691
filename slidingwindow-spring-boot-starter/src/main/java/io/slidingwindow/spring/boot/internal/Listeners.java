package io.slidingwindow.spring.boot.internal;

import io.micrometer.core.instrument.MeterRegistry;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.spring.boot.web.MicrometerRateLimitListener;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;

/**
 * The listener every enforcer of the starter tells, on either web stack and on bean methods, and
 * the gateway's limiter. Not an API: applications define {@link RateLimitListener} beans instead.
 */
public final class Listeners {

  private Listeners() {}

  /**
   * The application's listener beans in order, then Micrometer counters if there is a meter
   * registry and the application has not defined a {@link MicrometerRateLimitListener} itself.
   */
  public static RateLimitListener of(
      ObjectProvider<RateLimitListener> listeners, ObjectProvider<MeterRegistry> registry) {
    List<RateLimitListener> all = new ArrayList<>(listeners.orderedStream().toList());
    MeterRegistry meters = registry.getIfUnique();
    if (meters != null && all.stream().noneMatch(MicrometerRateLimitListener.class::isInstance)) {
      all.add(new MicrometerRateLimitListener(meters));
    }
    return all.isEmpty() ? RateLimitListener.NONE : RateLimitListener.composite(all);
  }
}
