package io.slidingwindow.redis.lettuce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class LettuceConnectsTest {

  /**
   * Lettuce's failure of a connect through one Sentinel, nested as its {@code RedisClient} nests
   * it: the failure of the last Sentinel tried is the cause (those of the others it suppresses).
   */
  private static RedisConnectionException sentinelFailure(Throwable reason) {
    return new RedisConnectionException(
        "Cannot connect to a Redis Sentinel: [redis://127.0.0.1:1]",
        new RedisConnectionException(
            "Cannot connect Redis Sentinel at redis://127.0.0.1:1", reason));
  }

  private static RedisConnectionException lostSentinelReply() {
    return sentinelFailure(new IllegalStateException(LettuceConnects.LOST_HANDSHAKE));
  }

  private static RedisConnectionException refusedCredentials() {
    return sentinelFailure(
        new RedisCommandExecutionException("NOAUTH HELLO must be called with the client already"));
  }

  /** Connects with a supplier that always throws {@code failure}'s; returns the calls it took. */
  private static int callsUntilThrown(Supplier<RuntimeException> failure) {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                LettuceConnects.connect(
                    () -> {
                      calls.incrementAndGet();
                      throw failure.get();
                    }))
        .isInstanceOf(RedisConnectionException.class);
    return calls.get();
  }

  @Test
  void connect_lostReplyOnce_triesAgainAndReturnsTheConnection() {
    AtomicInteger calls = new AtomicInteger();
    String connection =
        LettuceConnects.connect(
            () -> {
              if (calls.incrementAndGet() == 1) {
                throw lostSentinelReply();
              }
              return "connection";
            });
    assertThat(connection).isEqualTo("connection");
    assertThat(calls).hasValue(2);
  }

  @Test
  void connect_lostReplyThenTheReply_throwsTheReplyExplained() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                LettuceConnects.connect(
                    () -> {
                      throw calls.incrementAndGet() == 1
                          ? lostSentinelReply()
                          : refusedCredentials();
                    }))
        .satisfies(
            e ->
                assertThat(
                        LettuceConnects.explained((RuntimeException) e, "sentinel m via [x]")
                            .getMessage())
                    .contains("refuses the credentials")
                    .contains("NOAUTH"));
    assertThat(calls).hasValue(2);
  }

  @Test
  void connect_replyLostEveryTime_givesUpAfterTheBound() {
    assertThat(callsUntilThrown(LettuceConnectsTest::lostSentinelReply))
        .isEqualTo(LettuceConnects.ATTEMPTS);
  }

  @Test
  void connect_otherFailures_areNotTriedAgain() {
    assertThat(callsUntilThrown(LettuceConnectsTest::refusedCredentials)).isEqualTo(1);
    assertThat(callsUntilThrown(() -> new RedisConnectionException("Connection refused")))
        .isEqualTo(1);
  }

  @Test
  void lostReply_foundInCausesAndSuppressed_only_andCyclesEnd() {
    assertThat(LettuceConnects.lostReply(new IllegalStateException(LettuceConnects.LOST_HANDSHAKE)))
        .isTrue();
    assertThat(LettuceConnects.lostReply(lostSentinelReply())).isTrue();
    RedisConnectionException otherSentinelLostIt = sentinelFailure(new RuntimeException("refused"));
    otherSentinelLostIt.addSuppressed(lostSentinelReply().getCause());
    assertThat(LettuceConnects.lostReply(otherSentinelLostIt)).isTrue();
    assertThat(
            LettuceConnects.lostReply(
                new RuntimeException(new RuntimeException(lostSentinelReply()))))
        .isTrue();
    assertThat(LettuceConnects.lostReply(refusedCredentials())).isFalse();
    assertThat(LettuceConnects.lostReply(new IllegalStateException("something else"))).isFalse();
    // The same words in another kind of exception are not Lettuce's.
    assertThat(LettuceConnects.lostReply(new RuntimeException(LettuceConnects.LOST_HANDSHAKE)))
        .isFalse();
    RuntimeException a = new RuntimeException("a");
    RuntimeException b = new RuntimeException("b", a);
    a.initCause(b);
    assertThat(LettuceConnects.lostReply(a)).isFalse();
  }

  @Test
  void explained_namesTheProblemAndMasksThePassword() {
    RuntimeException explained =
        LettuceConnects.explained(refusedCredentials(), "standalone redis://:s3cret@127.0.0.1:1");
    assertThat(explained)
        .isInstanceOf(RedisConnectionException.class)
        .hasMessageContaining("refuses the credentials")
        .hasMessageContaining("NOAUTH")
        .hasMessageNotContaining("s3cret");
    // Two Sentinels: the first refused the credentials, the last (the cause) could not be reached.
    RedisConnectionException twoSentinels =
        sentinelFailure(new RedisConnectionException("Connection refused"));
    twoSentinels.addSuppressed(refusedCredentials().getCause());
    assertThat(LettuceConnects.explained(twoSentinels, "sentinel m via [a, b]"))
        .hasMessageContaining("refuses the credentials")
        .hasMessageContaining("NOAUTH");
    RuntimeException unrelated = new RedisConnectionException("Connection refused");
    assertThat(LettuceConnects.explained(unrelated, "standalone redis://127.0.0.1:1"))
        .isSameAs(unrelated);
  }
}
