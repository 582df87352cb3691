package io.slidingwindow.spring.method;

import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.Settlement;
import org.aopalliance.intercept.MethodInvocation;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Calls of {@code @RateLimit} methods that return a {@code Mono} or a {@code Flux}, loaded only
 * when such a method exists (so Reactor is needed only then). Each subscription is decided without
 * blocking, and only a granted one calls the method (a fresh copy of the invocation each time) and
 * subscribes to what it returns; a refused one gets the fallback's publisher, or the refusal as its
 * error signal. Nothing is thrown at assembly. With {@code countOn}, the reservation is settled
 * when the publisher completes or fails (or the method throws); a subscription cancelled first
 * keeps it counted. The method runs as a call counted under the given declaration ({@link
 * Nesting}), unless that is null. Stateless.
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
              Mono<Object> mono = Mono.from(asPublisher(answer.publisher()));
              Settlement settlement = answer.settlement();
              return settlement.isEmpty()
                  ? mono
                  : settled(limited, settlement, mono.flux()).singleOrEmpty();
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
              Flux<Object> flux = Flux.from(asPublisher(answer.publisher()));
              Settlement settlement = answer.settlement();
              return settlement.isEmpty() ? flux : settled(limited, settlement, flux);
            });
  }

  /**
   * {@code flux}, settling {@code settlement} when it completes or fails, before that end is passed
   * on. An {@link Error} the settling throws ends it as {@link LimitedMethod#ended} says, as a
   * signal of a source of its own: Reactor throws a JVM-fatal error (a {@code LinkageError}) that
   * an operator's function throws or returns as a ready-made error, which would leave the
   * subscriber waiting forever.
   */
  private static Flux<Object> settled(
      LimitedMethod limited, Settlement settlement, Flux<Object> flux) {
    return flux.onErrorResume(error -> Mono.error(limited.settleAsync(settlement, error)))
        .concatWith(
            Mono.defer(
                () -> {
                  Throwable failed = limited.settleAsync(settlement, null);
                  return failed == null ? Mono.empty() : Mono.error(failed);
                }));
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
        .map(
            outcome -> {
              Object publisher;
              try {
                publisher =
                    outcome.allowed()
                        ? LimitedMethod.proceed(invocation, marked)
                        : limited.refused(target, args, limited.refusal(outcome));
              } catch (Throwable e) {
                publisher = Mono.error(e);
              }
              return new Answer(publisher == null ? Mono.empty() : publisher, outcome.settlement());
            });
  }

  @SuppressWarnings("unchecked")
  private static Publisher<Object> asPublisher(Object publisher) {
    return (Publisher<Object>) publisher;
  }
}
