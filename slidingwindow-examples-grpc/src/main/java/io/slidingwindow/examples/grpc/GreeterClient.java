package io.slidingwindow.examples.grpc;

import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.slidingwindow.examples.grpc.helloworld.GreeterGrpc;
import io.slidingwindow.examples.grpc.helloworld.HelloRequest;
import io.slidingwindow.grpc.RetryDelays;
import java.util.concurrent.TimeUnit;

/**
 * Calls the greeter's SayHello a number of times and prints each answer: the greeting, or the
 * status code with the wait the refusal asks for.
 */
public final class GreeterClient {

  private GreeterClient() {}

  /**
   * Calls 127.0.0.1:PORT.
   *
   * @param args {@code --port N} (50051 by default) and {@code --calls N} (7 by default)
   */
  public static void main(String[] args) throws InterruptedException {
    int port = ExampleArgs.port(args, 50051);
    int calls = ExampleArgs.intOption(args, "--calls", 7);
    ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    try {
      GreeterGrpc.GreeterBlockingStub greeter = GreeterGrpc.newBlockingStub(channel);
      for (int i = 1; i <= calls; i++) {
        try {
          String reply =
              greeter
                  .withDeadlineAfter(10, TimeUnit.SECONDS)
                  .sayHello(HelloRequest.newBuilder().setName("call " + i).build())
                  .getMessage();
          System.out.println(i + ": OK " + reply);
        } catch (StatusRuntimeException e) {
          System.out.println(
              i
                  + ": "
                  + e.getStatus().getCode()
                  + " ("
                  + e.getStatus().getCode().value()
                  + ") "
                  + e.getStatus().getDescription()
                  + RetryDelays.of(e).map(wait -> "; RetryInfo " + wait).orElse(""));
        }
      }
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
