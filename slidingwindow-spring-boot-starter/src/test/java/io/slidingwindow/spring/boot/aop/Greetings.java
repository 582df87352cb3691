package io.slidingwindow.spring.boot.aop;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import reactor.core.publisher.Mono;

/** A bean of the tests, not a controller: 2 greetings per 10 s a name. */
public class Greetings {

  @RateLimit(limits = "2/10s", key = "#name", name = "greetings")
  public String greet(String name) {
    return "hello " + name;
  }

  @RateLimit(limits = "2/10s", key = "#name", name = "reactive-greetings", fallbackMethod = "later")
  public Mono<String> greetLater(String name) {
    return Mono.just("hello " + name);
  }

  Mono<String> later(String name, RateLimitExceededException refusal) {
    return Mono.just("later, " + name + ", in " + refusal.retryAfter().toSeconds() + " s");
  }
}
