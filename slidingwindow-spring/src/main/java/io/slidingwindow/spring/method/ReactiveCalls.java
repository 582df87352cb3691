package io.slidingwindow.spring.method;

import io.slidingwindow.http.EnforcementCore;
import org.aopalliance.intercept.MethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Calls of {@code @RateLimit} methods that return a {@code Mono} or a {@code Flux}, loaded only
 * when such a method exists (so Reactor is needed only then). Each subscription is decided without
 * blocking, and only a granted one calls the method (a fresh copy of the invocation each time) and
 * subscribes to what it returns; a refused one gets the fallback's publisher, or the refusal as its
 * error signal. Nothing is thrown at assembly. Stateless.
 */
final class ReactiveCalls {

  private ReactiveCalls() {}

  static Mono<Object> mono(
      LimitedMethod limited,
      EnforcementCore<Object[]> core,
      MethodInvocation invocation,
      Object target) {
    return answer(limited, core, invocation, target).flatMap(ReactiveCalls::asMono);
  }

  static Flux<Object> flux(
      LimitedMethod limited,
      EnforcementCore<Object[]> core,
      MethodInvocation invocation,
      Object target) {
    return answer(limited, core, invocation, target).flatMapMany(ReactiveCalls::asFlux);
  }

  /**
   * At each subscription, the decision and then the publisher that answers it: the method's, once
   * granted, or the fallback's; empty if that is null, the error if calling it throws.
   */
  private static Mono<Object> answer(
      LimitedMethod limited,
      EnforcementCore<Object[]> core,
      MethodInvocation invocation,
      Object target) {
    Object[] args = invocation.getArguments();
    return Mono.fromCompletionStage(() -> limited.decideAsync(core, args))
        .flatMap(
            outcome -> {
              try {
                return Mono.justOrEmpty(
                    outcome.allowed()
                        ? LimitedMethod.proceed(invocation)
                        : limited.refused(target, args, limited.refusal(outcome)));
              } catch (Throwable e) {
                return Mono.error(e);
              }
            });
  }

  @SuppressWarnings("unchecked")
  private static Mono<Object> asMono(Object publisher) {
    return (Mono<Object>) publisher;
  }

  @SuppressWarnings("unchecked")
  private static Flux<Object> asFlux(Object publisher) {
    return (Flux<Object>) publisher;
  }
}
