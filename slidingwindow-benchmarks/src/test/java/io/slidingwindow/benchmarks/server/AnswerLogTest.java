package io.slidingwindow.benchmarks.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AnswerLogTest {

  @Test
  void record_full_refusesAndKeepsWhatWasRecorded() {
    AnswerLog log = new AnswerLog(2);

    assertThat(log.record(7, 10, 20, AnswerLog.OK)).isTrue();
    assertThat(log.record(8, 30, 45, AnswerLog.OVER_LIMIT)).isTrue();
    assertThat(log.record(9, 50, 60, AnswerLog.OK)).isFalse();

    assertThat(log.size()).isEqualTo(2);
    assertThat(log.value(1)).isEqualTo(8);
    assertThat(log.sentAt(1)).isEqualTo(30);
    assertThat(log.receivedAt(1)).isEqualTo(45);
    assertThat(log.code(1)).isEqualTo(AnswerLog.OVER_LIMIT);
  }

  @Test
  void record_manyThreads_everyAnswerLandsInItsOwnSlot() throws Exception {
    int threads = 4;
    int each = 5_000;
    AnswerLog log = new AnswerLog(threads * each);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch start = new CountDownLatch(1);
    List<Future<?>> workers = new ArrayList<>();
    try {
      for (int t = 0; t < threads; t++) {
        int thread = t;
        workers.add(
            pool.submit(
                () -> {
                  start.await();
                  for (int i = 0; i < each; i++) {
                    long id = (long) thread * each + i;
                    log.record(thread, id, id + 1, AnswerLog.OK);
                  }
                  return null;
                }));
      }
      start.countDown();
    } finally {
      pool.shutdown();
      assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }
    for (Future<?> worker : workers) {
      worker.get(); // rethrows a worker's failure
    }

    assertThat(log.size()).isEqualTo(threads * each);
    Set<Long> ids = new HashSet<>();
    for (int i = 0; i < log.size(); i++) {
      ids.add(log.sentAt(i));
      assertThat(log.receivedAt(i)).isEqualTo(log.sentAt(i) + 1);
      assertThat((long) log.value(i)).isEqualTo(log.sentAt(i) / each);
    }
    assertThat(ids).hasSize(threads * each);
  }

  @Test
  void new_capacityNotPositive_throws() {
    assertThatThrownBy(() -> new AnswerLog(0)).hasMessageContaining("capacity");
  }
}
