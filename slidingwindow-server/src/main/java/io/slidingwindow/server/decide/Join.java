package io.slidingwindow.server.decide;

import io.slidingwindow.server.decide.Decisions.Status;
import io.slidingwindow.server.decide.Decisions.Verdict;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Gathers the statuses of a request whose descriptors are decided at once, each by a stage of its
 * own: the verdict completes when the last stage has, on that stage's thread, or fails with the
 * first failure. Each stage writes only its own slot, and the count's atomic decrement orders those
 * writes before the verdict is read. Thread-safe.
 */
final class Join {

  private final Status[] statuses;
  private final AtomicInteger pending = new AtomicInteger(1);
  private final CompletableFuture<Verdict> verdict = new CompletableFuture<>();

  Join(Status[] statuses) {
    this.statuses = statuses;
  }

  /** Fills slot {@code d} with {@code convert} of what {@code stage} completes with. */
  <T> void await(CompletableFuture<T> stage, Function<T, Status> convert, int d) {
    pending.incrementAndGet();
    var unused =
        stage.whenComplete(
            (value, error) -> {
              if (error != null) {
                verdict.completeExceptionally(error);
                return;
              }
              try {
                statuses[d] = convert.apply(value);
              } catch (RuntimeException e) {
                verdict.completeExceptionally(e);
                return;
              }
              arrive();
            });
  }

  /** Called once every stage was handed over: the verdict, complete or to come. */
  CompletableFuture<Verdict> finish() {
    arrive();
    return verdict;
  }

  private void arrive() {
    if (pending.decrementAndGet() == 0) {
      verdict.complete(new Verdict(statuses));
    }
  }
}
