package io.slidingwindow.spring.method;

import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.Settlement;
import org.aopalliance.intercept.MethodInvocation;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Calls of {@code @RateLimit} methods that return a {@code Mono} or a {@code Flux}, loaded only
 * when such a method exists (so Reactor is needed only then). Each subscription is decided without
 * blocking, and only a granted one calls the method (a fresh copy of the invocation each time) and
 * subscribes to what it returns; a refused one gets the fallback's publisher, or the refusal as its
 * error signal. Nothing is thrown at assembly. With {@code countOn}, the reservation is settled
 * when the publisher completes or fails; a subscription cancelled first keeps it counted. The
 * method runs as a call counted under the given declaration ({@link Nesting}), unless that is null.
 * Stateless.
 */
final class ReactiveCalls {

  private ReactiveCalls() {}

  static Mono<Object> mono(
      LimitedMethod limited,
      EnforcementCore<Object[]> core,
      MethodInvocation invocation,
      Object target,
      Nesting.Mark marked) {
    return answer(limited, core, invocation, target, marked)
        .flatMap(
            answer -> {
              Mono<Object> mono = asMono(answer.publisher());
              Settlement settlement = answer.settlement();
              return settlement.isEmpty()
                  ? mono
                  : mono.doOnSuccess(value -> limited.settleAsync(settlement, null))
                      .doOnError(error -> limited.settleAsync(settlement, error));
            });
  }

  static Flux<Object> flux(
      LimitedMethod limited,
      EnforcementCore<Object[]> core,
      MethodInvocation invocation,
      Object target,
      Nesting.Mark marked) {
    return answer(limited, core, invocation, target, marked)
        .flatMapMany(
            answer -> {
              Flux<Object> flux = asFlux(answer.publisher());
              Settlement settlement = answer.settlement();
              return settlement.isEmpty()
                  ? flux
                  : flux.doOnComplete(() -> limited.settleAsync(settlement, null))
                      .doOnError(error -> limited.settleAsync(settlement, error));
            });
  }

  /** The publisher that answers a call, and what its end settles. */
  private record Answer(Object publisher, Settlement settlement) {}

  /**
   * At each subscription, the decision and then the publisher that answers it: the method's, once
   * granted, or the fallback's; empty if that is null, the error if calling it throws.
   */
  private static Mono<Answer> answer(
      LimitedMethod limited,
      EnforcementCore<Object[]> core,
      MethodInvocation invocation,
      Object target,
      Nesting.Mark marked) {
    Object[] args = invocation.getArguments();
    return Mono.fromCompletionStage(() -> limited.decideAsync(core, args))
        .flatMap(
            outcome -> {
              Settlement settlement = outcome.settlement();
              try {
                Object publisher =
                    outcome.allowed()
                        ? LimitedMethod.proceed(invocation, marked)
                        : limited.refused(target, args, limited.refusal(outcome));
                if (publisher == null) {
                  limited.settleAsync(settlement, null);
                  return Mono.empty();
                }
                return Mono.just(new Answer(publisher, settlement));
              } catch (Throwable e) {
                limited.settleAsync(settlement, e);
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
