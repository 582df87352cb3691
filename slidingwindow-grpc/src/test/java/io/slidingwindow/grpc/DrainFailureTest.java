package io.slidingwindow.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.Status;
import io.slidingwindow.Decision;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Limit;
import io.slidingwindow.Reservation;
import io.slidingwindow.http.RateLimiterFactory;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Failures inside the interceptor's own steps, not the handler's, on a real server and client: a
 * backend whose refund throws an {@link Error} at once, an executor that cannot take the call, an
 * interceptor outside the limiter whose close throws. Each must end the call (never left open until
 * the client's deadline, shown as {@code DEADLINE_EXCEEDED}) and let the handler hear its end.
 *
 * <p>An {@link Error} that ends a call is thrown on to the thread that ran the step (as gRPC throws
 * a handler's on), so the waits here leave other threads' uncaught exceptions alone: Awaitility
 * would otherwise fail the test with them.
 */
class DrainFailureTest {

  private static final Duration BOUND = Duration.ofSeconds(10);

  private final ListenedLimits limits = new ListenedLimits();
  @RegisterExtension final Started started = new Started();

  private static CallOptions shortDeadline() {
    return CallOptions.DEFAULT.withDeadlineAfter(5, TimeUnit.SECONDS);
  }

  /** The code of one login with {@code text}, its deadline 5 seconds away. */
  private static Status.Code login(EchoServer server, String text) throws Exception {
    return server.startLogin(text, shortDeadline()).code().get(BOUND.toSeconds(), TimeUnit.SECONDS);
  }

  /**
   * In-memory windows whose reservations' asynchronous refund throws {@code error} at once, as a
   * backend whose client class failed to load does.
   */
  private RateLimiterFactory refundThrowing(Error error) {
    RateLimiterFactory local = RateLimiterFactory.inMemory(limits.ticker, 1_000);
    return (rule, ruleLimits, countRefused) -> {
      KeyedRateLimiter<String> windows = local.create(rule, ruleLimits, countRefused);
      return new KeyedRateLimiter<>() {
        @Override
        public boolean tryAcquire(String key, long permits) {
          return windows.tryAcquire(key, permits);
        }

        @Override
        public Decision decide(String key, long permits) {
          return windows.decide(key, permits);
        }

        @Override
        public List<Limit> limits() {
          return windows.limits();
        }

        @Override
        public Reservation reserve(String key, String group, long permits) {
          Reservation reserved = windows.reserve(key, group, permits);
          if (!reserved.isRefundable()) {
            return reserved;
          }
          return Reservation.refundable(
              reserved.decision(),
              new Reservation.Refunder() {
                @Override
                public void refund() {
                  throw error;
                }

                @Override
                public CompletionStage<Void> refundAsync() {
                  throw error;
                }
              });
        }

        @Override
        public CompletionStage<Reservation> reserveAsync(String key, String group, long permits) {
          return CompletableFuture.completedFuture(reserve(key, group, permits));
        }
      };
    };
  }

  @Test
  void refundThrowingAnErrorAtOnce_theHandlersCloseStillReachesTheClient() throws Exception {
    EchoServer server =
        started.server(
            limits
                .interceptor()
                .limiterFactory(refundThrowing(new NoClassDefFoundError("the backend's client")))
                .rule(
                    GrpcRateLimitRule.builder("logins")
                        .method("test.Auth/Login")
                        .limit("3/1h")
                        .countCodes(Status.Code.UNAUTHENTICATED)
                        .build())
                .build());

    assertThat(login(server, "good"))
        .as("the handler's OK, not the client's deadline passing")
        .isEqualTo(Status.Code.OK);
    assertThat(login(server, "bad")).isEqualTo(Status.Code.UNAUTHENTICATED);
  }
}
