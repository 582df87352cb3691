package io.slidingwindow.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LettuceConnectsTest {

  /** Lettuce's failure of a Sentinel connect whose handshake it did not see, as it nests it. */
  private static RedisConnectionException lostSentinelReply() {
    RedisConnectionException outer =
        new RedisConnectionException("Cannot connect to a Redis Sentinel: [redis://127.0.0.1:1]");
    outer.addSuppressed(
        new RedisConnectionException(
            "Cannot connect Redis Sentinel at redis://127.0.0.1:1",
            new IllegalStateException(LettuceConnects.LOST_HANDSHAKE)));
    return outer;
  }

  private static RedisConnectionException refusedCredentials() {
    return new RedisConnectionException(
        "Cannot connect to a Redis Sentinel: [redis://127.0.0.1:1]",
        new RedisCommandExecutionException("NOAUTH HELLO must be called with the client already"));
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
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                LettuceConnects.connect(
                    () -> {
                      calls.incrementAndGet();
                      throw lostSentinelReply();
                    }))
        .isInstanceOf(RedisConnectionException.class);
    assertThat(calls).hasValue(LettuceConnects.ATTEMPTS);
  }

  @Test
  void connect_otherFailures_areNotTriedAgain() {
    AtomicInteger calls = new AtomicInteger();
    assertThatThrownBy(
            () ->
                LettuceConnects.connect(
                    () -> {
                      calls.incrementAndGet();
                      throw refusedCredentials();
                    }))
        .hasRootCauseInstanceOf(RedisCommandExecutionException.class);
    assertThat(calls).hasValue(1);
  }

  @Test
  void lostReply_foundInCausesAndSuppressed_only_andCyclesEnd() {
    assertThat(LettuceConnects.lostReply(new IllegalStateException(LettuceConnects.LOST_HANDSHAKE)))
        .isTrue();
    assertThat(LettuceConnects.lostReply(lostSentinelReply())).isTrue();
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
    RuntimeException unrelated = new RedisConnectionException("Connection refused");
    assertThat(LettuceConnects.explained(unrelated, "standalone redis://127.0.0.1:1"))
        .isSameAs(unrelated);
  }
}
