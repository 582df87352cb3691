package io.slidingwindow.benchmarks.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The load drivers count every answer and grant, and a caller's failure ends the run. */
class LoadTest {

  private static final List<String> IDS = List.of("a", "b", "c", "d", "e", "f");

  @Test
  void blocking_everyOtherCallGranted_countsCallsAndGrantsOverTheRun() throws Exception {
    AtomicLong seen = new AtomicLong();
    ConcurrentHashMap<String, Boolean> ids = new ConcurrentHashMap<>();
    Load.Count count =
        Load.blocking(
            id -> {
              ids.put(id, true);
              return seen.incrementAndGet() % 2 == 0;
            },
            IDS,
            2,
            1);

    assertThat(count.requests()).isEqualTo(seen.get()).isPositive();
    assertThat(count.granted()).isBetween(count.requests() / 2 - 2, count.requests() / 2 + 2);
    assertThat(count.nanos()).isBetween(TimeUnit.SECONDS.toNanos(1), TimeUnit.SECONDS.toNanos(30));
    assertThat(ids.keySet()).containsExactlyInAnyOrderElementsOf(IDS);
  }

  @Test
  void blocking_callThrows_rethrowsIt() {
    assertThatThrownBy(
            () ->
                Load.blocking(
                    id -> {
                      throw new IllegalArgumentException("bad " + id);
                    },
                    IDS,
                    2,
                    1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("bad ");
  }

  @Test
  void async_answersCompleteLater_countsEveryAnswer() throws Exception {
    AtomicLong sent = new AtomicLong();
    Load.Count count =
        Load.async(
            id -> {
              long n = sent.incrementAndGet();
              return CompletableFuture.supplyAsync(() -> n % 3 == 0);
            },
            IDS,
            2,
            4,
            1);

    assertThat(count.requests()).isEqualTo(sent.get()).isPositive();
    assertThat(count.granted()).isBetween(count.requests() / 3 - 2, count.requests() / 3 + 2);
    assertThat(count.nanos()).isGreaterThanOrEqualTo(TimeUnit.SECONDS.toNanos(1));
  }

  @Test
  void async_answerFails_rethrowsTheFailure() {
    assertThatThrownBy(
            () ->
                Load.async(
                    id -> CompletableFuture.failedFuture(new IllegalStateException("down")),
                    IDS,
                    2,
                    4,
                    1))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("down");
  }
}
