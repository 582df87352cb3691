package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.lang.reflect.Field;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gRPC port's bounds, with grpc-java clients on the loopback address: keepalive pings at the
 * permitted interval keep the connection, with and without a call in flight, and pings more often
 * are still ended with GOAWAY {@code too_many_pings}; calls beyond the per-connection bound wait;
 * an idle connection is ended; connections beyond the limit are closed at once.
 */
@WithoutRedisServer
class GrpcBoundsIT {

  @TempDir Path dir;
  private RateLimitServer server;
  private final List<ManagedChannel> channels = new ArrayList<>();

  @AfterEach
  void stop() throws InterruptedException {
    for (ManagedChannel channel : channels) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    if (server != null) {
      server.close();
    }
  }

  @Test
  void keepalivePingsAtThePermittedInterval_withoutCalls_connectionKept() throws Exception {
    start(b -> b.grpcPermitKeepAliveTime(Duration.ofMillis(100)));
    ManagedChannel channel = pinging(Duration.ofMillis(200));
    check(channel); // connects

    await()
        .during(Duration.ofMillis(1500)) // seven pings or more, three too early would end it
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () -> assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY));
    assertThat(check(channel).getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  void keepalivePingsAtThePermittedInterval_duringACall_callGoesOn() throws Exception {
    start(b -> b.grpcPermitKeepAliveTime(Duration.ofMillis(100)));
    ManagedChannel channel = pinging(Duration.ofMillis(200));
    Watch watch = new Watch(channel);

    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(watch.ended.get()).as("the watch's end").isNull());
    assertThat(watch.first.get()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    watch.cancel();
  }

  @Test
  void keepalivePingsMoreOftenThanPermitted_goAwayTooManyPings() throws Exception {
    start(b -> b.grpcPermitKeepAliveTime(Duration.ofSeconds(5)));
    ManagedChannel channel = pinging(Duration.ofMillis(100));
    Watch watch = new Watch(channel);

    await().atMost(Duration.ofSeconds(5)).until(() -> watch.ended.get() != null);
    assertThat(watch.ended.get()).hasMessageContaining("too_many_pings");
  }

  @Test
  void callsBeyondThePerConnectionBound_heldOnThatConnectionOnly() throws Exception {
    start(b -> b.grpcMaxConcurrentCalls(2));
    ManagedChannel channel = channel(NettyChannelBuilder.forAddress("127.0.0.1", grpcPort()));
    Watch first = new Watch(channel);
    Watch second = new Watch(channel);
    await().atMost(Duration.ofSeconds(5)).until(() -> second.first.get() != null);

    Future<HealthCheckResponse> third =
        HealthGrpc.newFutureStub(channel)
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .check(HealthCheckRequest.newBuilder().setService("liveness").build());
    await()
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !third.isDone());
    ManagedChannel other = channel(NettyChannelBuilder.forAddress("127.0.0.1", grpcPort()));
    assertThat(check(other).getStatus())
        .as("another connection's call, while the first connection is at its bound")
        .isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    third.cancel(true);
    first.cancel();
    second.cancel();
  }

  @Test
  void connectionWithoutCallsForTheIdleTime_ended() throws Exception {
    start(b -> b.grpcMaxConnectionIdle(Duration.ofSeconds(1)));
    ManagedChannel channel = channel(NettyChannelBuilder.forAddress("127.0.0.1", grpcPort()));
    check(channel);
    assertThat(channel.getState(false)).isEqualTo(ConnectivityState.READY);

    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(channel.getState(false)).isEqualTo(ConnectivityState.IDLE));
    assertThat(check(channel).getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  void connectionsBeyondTheLimit_closedAtOnce_andTheirPlacesFreedWhenOthersClose()
      throws Exception {
    start(b -> b.grpcMaxConnections(2));
    ManagedChannel first = channel(NettyChannelBuilder.forAddress("127.0.0.1", grpcPort()));
    ManagedChannel second = channel(NettyChannelBuilder.forAddress("127.0.0.1", grpcPort()));
    check(first);
    check(second);

    ManagedChannel third = channel(NettyChannelBuilder.forAddress("127.0.0.1", grpcPort()));
    assertThatThrownBy(() -> check(third))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(check(first).getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);

    first.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    await()
        .atMost(Duration.ofSeconds(5))
        .ignoreExceptions()
        .until(
            () -> {
              ManagedChannel fresh =
                  channel(NettyChannelBuilder.forAddress("127.0.0.1", grpcPort()));
              return check(fresh).getStatus() == HealthCheckResponse.ServingStatus.SERVING;
            });
    assertThat(metrics().lines())
        .anyMatch(
            line ->
                line.startsWith("slidingwindow_server_request_errors_total{")
                    && line.contains("reason=\"too_many_connections\"")
                    && line.contains("transport=\"grpc\"")
                    && !line.endsWith(" 0.0"));
  }

  private void start(UnaryOperator<RateLimitServer.Builder> settings) throws Exception {
    server =
        settings.apply(TestServers.onLoopback(TestServers.clientConfig(dir, "minute", 10))).start();
  }

  private int grpcPort() {
    return server.grpcPort();
  }

  private String metrics() throws Exception {
    var response =
        java.net.http.HttpClient.newHttpClient()
            .send(
                TestServers.request(server.adminPort(), "GET", "/metrics", null, null).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    return response.body();
  }

  private ManagedChannel channel(NettyChannelBuilder builder) {
    ManagedChannel channel = builder.usePlaintext().build();
    channels.add(channel);
    return channel;
  }

  /**
   * A channel whose keepalive pings come every {@code interval}, also without calls. grpc-java
   * raises a client's interval to at least 10 s; its own tests build transports with a shorter one
   * directly, which this test cannot, so the builder's field is set past that check.
   */
  private ManagedChannel pinging(Duration interval) throws ReflectiveOperationException {
    NettyChannelBuilder builder =
        NettyChannelBuilder.forAddress("127.0.0.1", grpcPort())
            .keepAliveTime(10, TimeUnit.SECONDS)
            .keepAliveTimeout(5, TimeUnit.SECONDS)
            .keepAliveWithoutCalls(true);
    Field time = NettyChannelBuilder.class.getDeclaredField("keepAliveTimeNanos");
    time.setAccessible(true);
    time.setLong(builder, interval.toNanos());
    return channel(builder);
  }

  private static HealthCheckResponse check(ManagedChannel channel) {
    return check(channel, Duration.ofSeconds(5));
  }

  private static HealthCheckResponse check(ManagedChannel channel, Duration deadline) {
    return HealthGrpc.newBlockingStub(channel)
        .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
        .check(HealthCheckRequest.newBuilder().setService("liveness").build());
  }

  /** A {@code Health/Watch} call: open until cancelled, its first answer and how it ended. */
  private static final class Watch {
    final AtomicReference<HealthCheckResponse.ServingStatus> first = new AtomicReference<>();
    final AtomicReference<Throwable> ended = new AtomicReference<>();
    private final AtomicReference<ClientCallStreamObserver<?>> call = new AtomicReference<>();

    Watch(ManagedChannel channel) {
      HealthGrpc.newStub(channel)
          .watch(
              HealthCheckRequest.newBuilder().setService("liveness").build(),
              new ClientResponseObserver<HealthCheckRequest, HealthCheckResponse>() {
                @Override
                public void beforeStart(ClientCallStreamObserver<HealthCheckRequest> stream) {
                  call.set(stream);
                }

                @Override
                public void onNext(HealthCheckResponse value) {
                  first.compareAndSet(null, value.getStatus());
                }

                @Override
                public void onError(Throwable t) {
                  ended.set(t);
                }

                @Override
                public void onCompleted() {
                  ended.set(new IllegalStateException("completed"));
                }
              });
    }

    void cancel() {
      call.get().cancel("done", null);
    }
  }
}
