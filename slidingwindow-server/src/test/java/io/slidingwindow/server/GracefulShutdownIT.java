package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.nio.NioEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.socket.nio.NioSocketChannel;
import io.slidingwindow.Ticker;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.testkit.redis.WithoutRedisServer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@WithoutRedisServer
class GracefulShutdownIT {

  /** A clock that, once armed, holds every reader until released: a decision in flight. */
  private static final class HoldingTicker implements Ticker {
    volatile boolean armed;
    final CountDownLatch held = new CountDownLatch(2);
    final CountDownLatch release = new CountDownLatch(1);

    @Override
    public long read() {
      if (armed) {
        held.countDown();
        try {
          release.await(20, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return 0;
    }
  }

  @TempDir Path dir;

  @Test
  void close_callsInFlight_areAnsweredBeforeTheServerStops() throws Exception {
    Path config = TestServers.clientConfig(dir, "second", 5);
    HoldingTicker ticker = new HoldingTicker();
    RateLimitServer server =
        RateLimitServer.builder()
            .config(config)
            .host("127.0.0.1")
            .grpcPort(0)
            .httpPort(0)
            .adminPort(0)
            .ticker(ticker)
            .reloadInterval(Duration.ZERO)
            .drainTimeout(Duration.ofSeconds(20))
            .start();
    int grpcPort = server.grpcPort();
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
    HttpClient http = HttpClient.newHttpClient();
    NioEventLoopGroup freshLoop = new NioEventLoopGroup(1);
    try {
      ticker.armed = true;
      ListenableFuture<RateLimitResponse> grpcCall =
          RateLimitServiceGrpc.newFutureStub(channel)
              .withDeadlineAfter(30, TimeUnit.SECONDS)
              .shouldRateLimit(
                  EnvoyGrpcIT.request("client", "c").toBuilder().setDomain("api").build());
      CompletableFuture<HttpResponse<String>> httpCall =
          http.sendAsync(
              HttpRequest.newBuilder(
                      URI.create("http://127.0.0.1:" + server.httpPort() + "/v1/decide"))
                  .timeout(Duration.ofSeconds(30))
                  .header("Content-Type", "application/json")
                  .POST(
                      HttpRequest.BodyPublishers.ofString(
                          "{\"domain\": \"api\", \"descriptors\": [{\"entries\": [{\"key\":"
                              + " \"client\", \"value\": \"c\"}]}]}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(ticker.held.await(10, TimeUnit.SECONDS)).isTrue();

      // A thread of its own: the common pool has one thread on a 2-CPU machine, which a task of
      // another test may hold.
      CompletableFuture<Void> closing = new CompletableFuture<>();
      Thread closer =
          new Thread(
              () -> {
                server.close();
                closing.complete(null);
              },
              "closer");
      closer.setDaemon(true);
      closer.start();
      // Calls run on the event loop, which the held ticker blocks: a new call comes on a new
      // connection, which a stopping server no longer accepts. grpc-java's clients and servers
      // share one group of event loops by default, and the held call blocks one of them; so the
      // new connections get a loop of their own, or one could wait behind the held call and
      // never hear the refusal.
      await()
          .atMost(Duration.ofSeconds(10))
          .until(
              () -> {
                ManagedChannel fresh =
                    NettyChannelBuilder.forAddress("127.0.0.1", grpcPort)
                        .eventLoopGroup(freshLoop)
                        .channelType(NioSocketChannel.class)
                        .usePlaintext()
                        .build();
                try {
                  RateLimitServiceGrpc.newBlockingStub(fresh)
                      .withDeadlineAfter(2, TimeUnit.SECONDS)
                      .shouldRateLimit(
                          EnvoyGrpcIT.request("client", "d").toBuilder().setDomain("api").build());
                  return false;
                } catch (StatusRuntimeException e) {
                  return e.getStatus().getCode() == Status.Code.UNAVAILABLE;
                } finally {
                  fresh.shutdownNow();
                }
              });
      assertThat(closing).isNotDone();

      ticker.release.countDown();

      assertThat(grpcCall.get(10, TimeUnit.SECONDS).getOverallCode())
          .isEqualTo(RateLimitResponse.Code.OK);
      assertThat(httpCall.get(10, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      closing.get(10, TimeUnit.SECONDS);
    } finally {
      ticker.release.countDown();
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      server.close();
      freshLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
  }
}
