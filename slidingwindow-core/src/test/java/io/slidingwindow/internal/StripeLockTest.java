package io.slidingwindow.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A stripe's lock word and roll word as a reader sees them, and what a reader and a second locker
 * do while a thread holds the stripe. (Which interleavings of adds and reads stay correct is
 * model-checked by StripedBucketsLincheckTest.)
 */
class StripeLockTest {

  private static final int SIZE = 3;
  private static final long INTERVAL = 100;

  @Test
  void lockAndUnlock_turnTheWordOddThenMoveItOnByTwo() {
    Stripe stripe = new Stripe(SIZE, INTERVAL);
    int before = stripe.seq;
    assertThat(before % 2).isZero();
    assertThat(stripe.tryLock()).isTrue();
    assertThat(stripe.seq).isEqualTo(before + 1);
    assertThat(stripe.tryLock()).isFalse();
    stripe.unlock();
    assertThat(stripe.seq).isEqualTo(before + 2);
    stripe.lock();
    assertThat(stripe.seq).isEqualTo(before + 3);
    stripe.unlock();
    assertThat(stripe.seq).isEqualTo(before + 4);
  }

  @Test
  void roll_movesTheRollWordOnByTwo() {
    Stripe stripe = new Stripe(SIZE, INTERVAL);
    int before = stripe.rolls;
    assertThat(before % 2).isZero();
    stripe.add(150, 1.0, 0, SIZE, INTERVAL);
    assertThat(stripe.rolls).isEqualTo(before + 2);
    stripe.add(160, 1.0, 0, SIZE, INTERVAL);
    assertThat(stripe.rolls).isEqualTo(before + 2);
    assertThat(stripe.currentBucketRacy()).isEqualTo(1);
  }

  @Test
  void lock_heldByAnotherThread_waitsUntilItIsReleased() {
    Stripe stripe = new Stripe(SIZE, INTERVAL);
    stripe.lock();
    AtomicBoolean locked = new AtomicBoolean();
    CompletableFuture<Void> other =
        CompletableFuture.runAsync(
            () -> {
              stripe.lock();
              locked.set(true);
              stripe.unlock();
            });
    await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(5)).untilFalse(locked);
    stripe.unlock();
    await().atMost(Duration.ofSeconds(10)).untilTrue(locked);
    other.join();
  }

  @Test
  void readInto_whileAnotherThreadHoldsTheStripe_waitsForItAndReadsWhatItWrote() {
    Stripe stripe = new Stripe(SIZE, INTERVAL);
    stripe.add(10, 2.0, 0, SIZE, INTERVAL);
    stripe.lock();
    StripedBuckets.Totals totals = new StripedBuckets.Totals();
    CompletableFuture<Void> reader =
        CompletableFuture.runAsync(() -> stripe.readInto(totals, 0, 0));
    await()
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !reader.isDone());
    // The holder adds while the reader waits: the reader sees both values once it has the lock.
    stripe.add(20, 3.0, 0, SIZE, INTERVAL);
    stripe.unlock();
    reader.orTimeout(10, TimeUnit.SECONDS).join();
    assertThat(totals.count()).isEqualTo(2);
    assertThat(totals.sum()).isEqualTo(5.0);
    assertThat(totals.min()).isEqualTo(2.0);
    assertThat(totals.max()).isEqualTo(3.0);
    assertThat(stripe.seq % 2).isZero();
  }
}
