package io.slidingwindow.grpc;

import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.StreamObserver;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One client's login stream ({@link EchoServer#LOGIN_STREAM}, one password per message) to a real
 * server: it sends each password after the answer to the one before, and keeps the answers and the
 * code the call ended with.
 */
final class LoginStream {

  /** What a login stream got: the answers to its passwords, and how it ended (null: open). */
  record Guesses(List<String> replies, Status.Code end) {}

  private static final int WAIT_SECONDS = 20;

  private final ClientCall<StringValue, StringValue> call;
  private final StreamObserver<StringValue> passwords;
  private final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
  private final List<String> replies = new ArrayList<>();
  private Status.Code end;

  private LoginStream(EchoServer server, CallOptions options) {
    this.call = server.channel().newCall(EchoServer.LOGIN_STREAM, options);
    this.passwords =
        ClientCalls.asyncBidiStreamingCall(
            call,
            EchoServer.replies(events::add, (status, trailers) -> events.add(status.getCode())));
  }

  /** Opens a login stream with {@code options} (their deadline bounds a call the server hangs). */
  static LoginStream open(EchoServer server, CallOptions options) {
    return new LoginStream(server, options);
  }

  /**
   * Sends wrong passwords ({@code guess-0}, {@code guess-1}...) on one stream, each after the
   * answer to the one before, until the server ends the call (or {@code max} were sent, then
   * half-closes): what the stream got.
   */
  static Guesses guessUntilEnded(EchoServer server, int max) throws InterruptedException {
    LoginStream stream = open(server, EchoServer.options());
    stream.guess(wrongPasswords(max));
    return stream.halfClose();
  }

  /** {@code guess-0} to {@code guess-(n-1)}. */
  static List<String> wrongPasswords(int n) {
    List<String> passwords = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      passwords.add("guess-" + i);
    }
    return passwords;
  }

  /**
   * Sends {@code texts}, each after the answer to the one before, and stops early if the server
   * ends the call; whether the call is still open.
   */
  boolean guess(List<String> texts) throws InterruptedException {
    for (int i = 0; i < texts.size() && end == null; i++) {
      passwords.onNext(StringValue.of(texts.get(i)));
      Object event = next("message " + i);
      if (event instanceof Status.Code code) {
        end = code;
      } else {
        replies.add((String) event);
      }
    }
    return end == null;
  }

  /** Sends {@code text} without waiting for its answer. */
  void send(String text) {
    passwords.onNext(StringValue.of(text));
  }

  /** Half-closes the stream without waiting for anything. */
  void sendHalfClose() {
    passwords.onCompleted();
  }

  /** Waits for the end of the call, keeping the answers until then: what the stream got. */
  Guesses awaitEnd() throws InterruptedException {
    while (end == null) {
      Object event = next("the messages sent");
      if (event instanceof Status.Code code) {
        end = code;
      } else {
        replies.add((String) event);
      }
    }
    return guesses();
  }

  /** Half-closes the stream if it is open and waits for its end: what the stream got. */
  Guesses halfClose() throws InterruptedException {
    if (end == null) {
      passwords.onCompleted();
      Object event = next("the half-close");
      if (!(event instanceof Status.Code code)) {
        throw new AssertionError("the stream did not end, it answered " + event);
      }
      end = code;
    }
    return guesses();
  }

  /** Cancels the stream as its client. */
  void cancel(String message) {
    call.cancel(message, null);
  }

  /** What the stream got so far. */
  Guesses guesses() {
    return new Guesses(List.copyOf(replies), end);
  }

  private Object next(String what) throws InterruptedException {
    Object event = events.poll(WAIT_SECONDS, TimeUnit.SECONDS);
    if (event == null) {
      throw new AssertionError("no answer to " + what + " within " + WAIT_SECONDS + " seconds");
    }
    return event;
  }
}
