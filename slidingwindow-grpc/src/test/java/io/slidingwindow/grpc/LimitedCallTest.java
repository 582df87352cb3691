package io.slidingwindow.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Context;
import io.grpc.ForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.Status;
import io.slidingwindow.Limit;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.EnforcementCore.Outcome;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.QuotaHeaders;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.http.StatusRanges;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * How a call under a rule that counts only some codes settles when it closes: with the code it
 * closes with, unless the client cancelled it first. gRPC cancels a call's context a moment before
 * the call itself says it was cancelled, so a handler that closes the call as soon as its context
 * is cancelled closes it in that moment: the context decides too.
 */
class LimitedCallTest {

  /**
   * One failed login an hour: a call reserves its permit, kept only if it closes UNAUTHENTICATED.
   */
  private final EnforcementCore<String> logins =
      EnforcementCore.<String>builder()
          .limiterFactory(RateLimiterFactory.inMemory(new FakeTicker(), 10))
          .rule(
              HttpRule.builder("logins")
                  .limit(Limit.exact(1, Duration.ofHours(1)))
                  .countStatuses(
                      StatusRanges.parse(
                          Integer.toString(
                              GrpcRateLimitRule.statusOf(Status.Code.UNAUTHENTICATED))))
                  .build(),
              call -> RequestKey.global())
          .build();

  private final Context.CancellableContext context = Context.ROOT.withCancellation();
  private final LimitedCall<String, String> call =
      new LimitedCall<>(new GatedListenerTest.RecordingCall(), context);

  private Outcome login() {
    return logins.enforce("call", "POST", List.of("/test.Auth/Login"), QuotaHeaders::new);
  }

  @Test
  void closedCancelled_whileOnlyItsContextKnowsOfTheCancellation_keepsItsPermit() {
    Outcome first = login();
    assertThat(first.allowed()).isTrue();
    call.settleOnClose(first.settlement());

    context.cancel(null); // the client cancelled: the context knows, the call does not say so yet
    call.close(Status.CANCELLED, new Metadata());

    assertThat(login().allowed()).as("the cancelled call kept its permit").isFalse();
  }

  /**
   * The backend's refund throws an Error at once and the close (an interceptor outside) throws too:
   * the call is still closed, and the Error, not the close's exception, is thrown on.
   */
  @Test
  void settlingThrowsAnError_andTheCloseThrows_theErrorIsThrownOn_withTheCloseSuppressed() {
    NoClassDefFoundError backend = new NoClassDefFoundError("the backend's client");
    EnforcementCore<String> failing =
        EnforcementCore.<String>builder()
            .limiterFactory(DrainFailureTest.refundThrowing(new FakeTicker(), backend))
            .rule(
                HttpRule.builder("logins")
                    .limit(Limit.exact(1, Duration.ofHours(1)))
                    .countStatuses(StatusRanges.parse("400-599"))
                    .build(),
                call -> RequestKey.global())
            .build();
    IllegalStateException hook = new IllegalStateException("the close hook failed");
    GatedListenerTest.RecordingCall below = new GatedListenerTest.RecordingCall();
    LimitedCall<String, String> wrapped =
        new LimitedCall<>(
            new ForwardingServerCall.SimpleForwardingServerCall<>(below) {
              @Override
              public void close(Status status, Metadata trailers) {
                super.close(status, trailers);
                throw hook;
              }
            },
            context);
    wrapped.settleOnClose(
        failing
            .enforce("call", "POST", List.of("/test.Auth/Login"), QuotaHeaders::new)
            .settlement());

    assertThatThrownBy(() -> wrapped.close(Status.OK, new Metadata()))
        .isSameAs(backend)
        .hasSuppressedException(hook);
    assertThat(below.closed).as("closed all the same").isEqualTo(Status.OK);
  }

  @Test
  void closedWithACodeNotCounted_notCancelled_givesItsPermitBack() {
    Outcome first = login();
    assertThat(first.allowed()).isTrue();
    call.settleOnClose(first.settlement());

    call.close(Status.CANCELLED, new Metadata()); // the handler's own choice of code

    assertThat(login().allowed()).as("the permit came back").isTrue();
    context.cancel(null);
  }
}
