package io.slidingwindow.webflux.internal;

import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpReply;
import java.util.function.Supplier;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Where the module's public filter hands over its {@link Access} when its class is initialized. The
 * access is generic in the filter's type, so that the filter depends on this class only, not on the
 * code of this package that uses the access and names the filter.
 */
public final class FilterHandover {

  /**
   * What the filter hands over: its constructor and its annotations.
   *
   * @param <F> the filter's type
   */
  public interface Access<F> {

    /** A filter of the rules {@code cores} gives, then of {@code annotations} (null for none). */
    F filter(
        Supplier<EnforcementCore<ReactiveKeySource>> cores,
        ClientAddresses addresses,
        ReactiveRateLimitAnnotations annotations,
        int order);

    /** The annotations {@code filter} enforces, or null if none. */
    ReactiveRateLimitAnnotations annotations(F filter);

    /**
     * Counts {@code exchange}, where {@code handler} (the handler the dispatcher picked) is about
     * to run, by what {@code filter} has not counted it by: its rules that apply to the request
     * only since a later web filter changed it, and the rule of an annotated {@code handler}. True
     * to go on, false once the refusal was written; null at once if there is nothing to count.
     */
    Mono<Boolean> atHandler(F filter, ServerWebExchange exchange, Object handler);

    /** Ends {@code exchange} with {@code reply}, as the filter writes its own answers. */
    Mono<Void> write(ServerWebExchange exchange, HttpReply reply);
  }

  private static volatile Access<?> access;

  private FilterHandover() {}

  /**
   * Takes the filter's access; the filter's class calls it once, when it is initialized.
   *
   * @throws IllegalArgumentException if {@code access} is null
   * @throws IllegalStateException if an access was already handed over
   */
  public static synchronized void install(Access<?> access) {
    if (access == null) {
      throw new IllegalArgumentException("access must not be null");
    }
    if (FilterHandover.access != null) {
      throw new IllegalStateException("the filter's access is already installed");
    }
    FilterHandover.access = access;
  }

  /** The access handed over, or null while the filter's class is not initialized. */
  static Access<?> installed() {
    return access;
  }
}
