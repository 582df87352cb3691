package io.slidingwindow.spring.method;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A bean of the tests: each kind of return, with and without a fallback, at 2 per 10 s a key. */
public class Quotes {

  /** An argument whose property a key reads. */
  public record Order(String customer) {}

  private final AtomicInteger runs = new AtomicInteger();

  /** How many times a method body ran. */
  public int runs() {
    return runs.get();
  }

  @RateLimit(limits = "2/10s", key = "#customer")
  public String plain(String customer) {
    runs.incrementAndGet();
    return "quote for " + customer;
  }

  @RateLimit(limits = "2/10s", key = "#customer", fallbackMethod = "plainLater")
  public String plainOr(String customer) {
    runs.incrementAndGet();
    return "quote for " + customer;
  }

  String plainLater(String customer, RateLimitExceededException refusal) {
    return "later for " + customer + " after " + refusal.retryAfter().toMillis() + " ms";
  }

  @RateLimit(limits = "2/10s", key = "#p0")
  public CompletionStage<String> stage(String customer) {
    runs.incrementAndGet();
    return CompletableFuture.completedFuture("quote for " + customer);
  }

  @RateLimit(limits = "2/10s", key = "#p0", fallbackMethod = "stageLater")
  public CompletableFuture<String> stageOr(String customer) {
    runs.incrementAndGet();
    return CompletableFuture.completedFuture("quote for " + customer);
  }

  CompletableFuture<String> stageLater(String customer, RuntimeException refusal) {
    return CompletableFuture.completedFuture("later for " + customer);
  }

  @RateLimit(limits = "2/10s", key = "args[0]")
  public Mono<String> mono(String customer) {
    runs.incrementAndGet();
    return Mono.just("quote for " + customer);
  }

  @RateLimit(limits = "2/10s", key = "args[0]", fallbackMethod = "monoLater")
  public Mono<String> monoOr(String customer) {
    runs.incrementAndGet();
    return Mono.just("quote for " + customer);
  }

  Mono<String> monoLater(String customer, RateLimitExceededException refusal) {
    return Mono.just("later for " + customer);
  }

  @RateLimit(limits = "2/10s", key = "#customer")
  public Flux<String> flux(String customer) {
    runs.incrementAndGet();
    return Flux.just("a", "b");
  }

  @RateLimit(limits = "2/10s", key = "#customer", fallbackMethod = "fluxLater")
  public Flux<String> fluxOr(String customer) {
    runs.incrementAndGet();
    return Flux.just("a", "b");
  }

  Flux<String> fluxLater(String customer, RateLimitExceededException refusal) {
    return Flux.just("later");
  }

  @RateLimit(limits = "2/10s", key = "#order.customer.toUpperCase()", name = "orders")
  public String order(Order order) {
    runs.incrementAndGet();
    return "ordered";
  }

  @RateLimit(limits = "3/1s")
  public int global() {
    return runs.incrementAndGet();
  }

  /** Not limited. */
  public String free(String customer) {
    runs.incrementAndGet();
    return customer;
  }
}
