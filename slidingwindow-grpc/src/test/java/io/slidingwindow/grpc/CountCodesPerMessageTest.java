package io.slidingwindow.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import io.slidingwindow.grpc.LoginStream.Guesses;
import io.slidingwindow.http.RequestKey;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A rule that counts only some codes together with a rule that counts messages, on a bidi login
 * ({@code test.Auth/LoginStream}, one password per message, each wrong one answered, closed
 * UNAUTHENTICATED at the end): when the interceptor ends a call its handler has already served, the
 * code the handler would have closed it with is never known, and the call must still count.
 */
class CountCodesPerMessageTest {

  private final ListenedLimits limits = new ListenedLimits();
  @RegisterExtension final Started started = new Started();

  /** Failed logins: 2 calls an hour, counted only when they close UNAUTHENTICATED. */
  private static GrpcRateLimitRule logins() {
    return GrpcRateLimitRule.builder("logins")
        .method("test.Auth/LoginStream")
        .limit("2/1h")
        .countCodes(Status.Code.UNAUTHENTICATED)
        .build();
  }

  /** Attempts: 3 messages a second. */
  private static GrpcRateLimitRule attempts(GrpcKeyResolver key) {
    return GrpcRateLimitRule.builder("attempts")
        .method("test.Auth/LoginStream")
        .limit("3/1s")
        .perMessage()
        .key(key)
        .build();
  }

  /** A server under the logins and the attempts, the attempts counted by the client's address. */
  private EchoServer attemptsByPeer() {
    return started.server(
        limits
            .interceptor()
            .rule(logins())
            .rule(attempts(GrpcKeyResolver.peerAddress(ClientAddressesFor.direct())))
            .build());
  }

  private List<Guesses> guessingCalls(EchoServer server, int calls) throws InterruptedException {
    List<Guesses> all = new ArrayList<>();
    for (int i = 0; i < calls; i++) {
      all.add(LoginStream.guessUntilEnded(server, 10));
      // the attempts' window passes; the logins' does not
      limits.ticker.advance(Duration.ofSeconds(2));
    }
    return all;
  }

  @Test
  void countCodes_withPerMessage_refusalAfterTheHandlerAnswered_stillCountsTheCall()
      throws InterruptedException {
    EchoServer server = attemptsByPeer();

    List<Guesses> calls = guessingCalls(server, 5);

    assertThat(calls.stream().filter(call -> !call.replies().isEmpty()).count())
        .as("calls whose handler answered a guess, under 2 failed logins an hour: %s", calls)
        .isEqualTo(2);
    assertThat(calls.get(0))
        .as("three guesses answered, the fourth refused")
        .isEqualTo(
            new Guesses(
                List.of("wrong password", "wrong password", "wrong password"),
                Status.Code.RESOURCE_EXHAUSTED));
    assertThat(calls.stream().map(Guesses::end)).containsOnly(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(server.received).hasSize(6);
    assertThat(limits.errors).isEmpty();
  }

  /**
   * A key resolver for the attempts that fails on a call's second message in a way no {@code catch
   * (RuntimeException)} sees (a parser of the password overflowing its stack): the interceptor ends
   * the call UNKNOWN after the handler answered the first guess, and the call still counts.
   */
  @Test
  void countCodes_withPerMessage_decisionFailingAfterTheHandlerAnswered_stillCountsTheCall()
      throws InterruptedException {
    Set<Object> seen =
        Collections.newSetFromMap(Collections.synchronizedMap(new IdentityHashMap<>()));
    GrpcKeyResolver failingOnTheSecond =
        (call, headers, context) -> {
          if (!seen.add(call)) {
            throw new StackOverflowError("password nested too deep");
          }
          return RequestKey.global();
        };
    EchoServer server =
        started.server(
            limits.interceptor().rule(logins()).rule(attempts(failingOnTheSecond)).build());

    List<Guesses> calls = guessingCalls(server, 5);

    assertThat(calls)
        .as("under 2 failed logins an hour")
        .containsExactly(
            new Guesses(List.of("wrong password"), Status.Code.UNKNOWN),
            new Guesses(List.of("wrong password"), Status.Code.UNKNOWN),
            new Guesses(List.of(), Status.Code.RESOURCE_EXHAUSTED),
            new Guesses(List.of(), Status.Code.RESOURCE_EXHAUSTED),
            new Guesses(List.of(), Status.Code.RESOURCE_EXHAUSTED));
    assertThat(limits.errors).isEmpty();
  }

  /**
   * Streams whose first message the attempts rule refuses when the call starts never reach the
   * handler: those keep today's behaviour, their login permits given back.
   */
  @Test
  void countCodes_withPerMessage_refusalBeforeTheHandler_getsThePermitBack()
      throws InterruptedException {
    EchoServer server = attemptsByPeer();

    Guesses first = LoginStream.guessUntilEnded(server, 10);
    List<Guesses> early = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      early.add(LoginStream.guessUntilEnded(server, 10));
    }
    limits.ticker.advance(Duration.ofSeconds(2));
    Guesses second = LoginStream.guessUntilEnded(server, 10);
    limits.ticker.advance(Duration.ofSeconds(2));
    Guesses third = LoginStream.guessUntilEnded(server, 10);

    assertThat(first.replies()).hasSize(3);
    assertThat(early)
        .as("refused at the start by the attempts, never served")
        .containsOnly(new Guesses(List.of(), Status.Code.RESOURCE_EXHAUSTED));
    assertThat(second.replies()).as("the early refusals took no failed login").hasSize(3);
    assertThat(third)
        .as("two failed logins counted")
        .isEqualTo(new Guesses(List.of(), Status.Code.RESOURCE_EXHAUSTED));
    assertThat(server.received).hasSize(6);
    assertThat(limits.errors).isEmpty();
  }

  /**
   * Sends {@code n} wrong passwords on one login stream, each after the answer to the one before,
   * then cancels it, and waits until the handler was told; the answers (fewer if the server ended
   * the call first).
   */
  private static List<String> guessThenCancel(EchoServer server, int n)
      throws InterruptedException {
    int cancelledBefore = server.cancelledLogins.get();
    LoginStream stream = LoginStream.open(server, EchoServer.options());
    if (stream.guess(LoginStream.wrongPasswords(n))) {
      stream.cancel("the client gives up on this stream");
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> server.cancelledLogins.get() > cancelledBefore);
    }
    return stream.guesses().replies();
  }

  /**
   * A client that cancels its login stream after the handler answered its guesses, against a
   * handler that passes the cancellation on as its close (CANCELLED, which the client never
   * receives): the application's close of a call the client cancelled must not give it back.
   */
  @Test
  void countCodes_streamCancelledByTheClient_closedCancelledByTheHandler_stillCounts()
      throws InterruptedException {
    EchoServer server = started.server(limits.interceptor().rule(logins()).build());

    List<List<String>> calls = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      calls.add(guessThenCancel(server, 3));
    }

    assertThat(calls)
        .as("answered guesses per stream, under 2 failed logins an hour")
        .containsExactly(
            List.of("wrong password", "wrong password", "wrong password"),
            List.of("wrong password", "wrong password", "wrong password"),
            List.of(),
            List.of(),
            List.of());
    assertThat(limits.errors).isEmpty();
  }
}
