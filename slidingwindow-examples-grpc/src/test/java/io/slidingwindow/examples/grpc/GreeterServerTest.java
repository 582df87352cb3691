package io.slidingwindow.examples.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.slidingwindow.examples.grpc.helloworld.GreeterGrpc;
import io.slidingwindow.examples.grpc.helloworld.HelloRequest;
import io.slidingwindow.grpc.RetryDelays;
import io.slidingwindow.testkit.FakeTicker;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The example as shipped, on Netty over loopback, with a real client. */
class GreeterServerTest {

  private final FakeTicker ticker = new FakeTicker();
  private Server server;
  private ManagedChannel channel;
  private GreeterGrpc.GreeterBlockingStub greeter;

  @BeforeEach
  void start() throws Exception {
    server = GreeterServer.start(0, ticker);
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
    greeter = GreeterGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() throws InterruptedException {
    channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  private String sayHello(String name) {
    return greeter
        .withDeadlineAfter(20, TimeUnit.SECONDS)
        .sayHello(HelloRequest.newBuilder().setName(name).build())
        .getMessage();
  }

  @Test
  void sayHello_sixthInTenSeconds_resourceExhaustedWithRetryInfoAndRetryAfter() {
    for (int i = 1; i <= 5; i++) {
      assertThat(sayHello("n" + i)).isEqualTo("Hello n" + i);
      ticker.advance(Duration.ofSeconds(1));
    }

    StatusRuntimeException refused = null;
    try {
      sayHello("six");
    } catch (StatusRuntimeException e) {
      refused = e;
    }

    assertThat(refused).as("the sixth call is refused").isNotNull();
    assertThat(refused.getStatus().getCode().value()).isEqualTo(8);
    assertThat(refused.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(RetryDelays.of(refused)).contains(Duration.ofSeconds(6));
    assertThat(
            refused
                .getTrailers()
                .get(Metadata.Key.of("retry-after", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo("6");

    ticker.advance(Duration.ofSeconds(6));
    assertThat(sayHello("again")).isEqualTo("Hello again");
  }

  @Test
  void args_port_readAndChecked() {
    assertThat(ExampleArgs.port(new String[] {"--port", "9090"}, 1)).isEqualTo(9090);
    assertThat(ExampleArgs.port(new String[] {"--port=9091"}, 1)).isEqualTo(9091);
    assertThat(ExampleArgs.port(new String[] {}, 50051)).isEqualTo(50051);
    assertThatThrownBy(() -> ExampleArgs.port(new String[] {"--port", "x"}, 1))
        .hasMessageContaining("--port");
    assertThatThrownBy(() -> ExampleArgs.port(new String[] {"--port", "70000"}, 1))
        .hasMessageContaining("--port");
  }
}
