package io.slidingwindow.gateway;

import org.springframework.cloud.gateway.filter.ratelimit.RateLimiter.Response;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;

/**
 * Keeps a kept-alive HTTP/1.1 connection served after a refusal. Reactor Netty queues a request
 * that arrives on a connection before the previous exchange on it has ended; when the queued
 * request is answered on the thread that takes it from the queue, in 1.2.11, 1.2.18, 1.3.6 and
 * 1.3.7 (the releases checked), nothing asks to read the connection again, and the client's next
 * request waits unread until the client gives up (reactor-netty#4361; 1.3.8 reads again). A refusal
 * is often decided at once (in memory; on Redis, for a key that the last reply left exhausted), so
 * it is handed to another thread before the gateway writes it. A grant goes on to the route's
 * backend, whose answer comes later anyway, and is not delayed.
 */
final class KeptAliveConnections {

  private KeptAliveConnections() {}

  /** {@code answer}, a refusal signalled on {@code scheduler}. */
  static Mono<Response> refusedElsewhere(Mono<Response> answer, Scheduler scheduler) {
    return answer.flatMap(
        response ->
            response.isAllowed() ? Mono.just(response) : Mono.just(response).publishOn(scheduler));
  }
}
