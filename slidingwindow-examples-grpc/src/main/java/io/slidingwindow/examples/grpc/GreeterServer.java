package io.slidingwindow.examples.grpc;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.Ticker;
import io.slidingwindow.examples.grpc.helloworld.GreeterGrpc;
import io.slidingwindow.examples.grpc.helloworld.HelloReply;
import io.slidingwindow.examples.grpc.helloworld.HelloRequest;
import io.slidingwindow.grpc.GrpcKeyResolver;
import io.slidingwindow.grpc.GrpcRateLimitRule;
import io.slidingwindow.grpc.RateLimitServerInterceptor;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RateLimiterFactory;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * A gRPC greeter on 127.0.0.1 whose {@code /helloworld.Greeter/SayHello} takes at most 5 calls in
 * any 10 seconds per client address; the sixth is refused with {@code RESOURCE_EXHAUSTED}, a {@code
 * google.rpc.RetryInfo} and {@code retry-after}.
 *
 * <pre>
 * ./mvnw -q -pl slidingwindow-examples-grpc -am compile exec:java -Dexec.args="--port 50051"
 * </pre>
 */
public final class GreeterServer {

  private GreeterServer() {}

  /** The greeter's service: says hello. */
  static final class Greeter extends GreeterGrpc.GreeterImplBase {
    @Override
    public void sayHello(HelloRequest request, StreamObserver<HelloReply> response) {
      response.onNext(HelloReply.newBuilder().setMessage("Hello " + request.getName()).build());
      response.onCompleted();
    }
  }

  /** The interceptor: SayHello at 5 per 10 s per client address, on {@code ticker}'s clock. */
  static RateLimitServerInterceptor rateLimits(Ticker ticker) {
    return RateLimitServerInterceptor.builder()
        .limiterFactory(
            RateLimiterFactory.inMemory(ticker, KeyedRateLimiter.Builder.DEFAULT_MAX_KEYS))
        .rule(
            GrpcRateLimitRule.builder("say-hello")
                .method("helloworld.Greeter/SayHello")
                .limit("5/10s")
                .key(GrpcKeyResolver.peerAddress(ClientAddresses.direct()))
                .build())
        .build();
  }

  /**
   * Starts the greeter on 127.0.0.1:{@code port} (0 for any free port).
   *
   * @throws IOException if the port cannot be bound
   */
  static Server start(int port, Ticker ticker) throws IOException {
    return NettyServerBuilder.forAddress(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), port))
        .addService(new Greeter())
        .intercept(rateLimits(ticker))
        .build()
        .start();
  }

  /**
   * Runs the greeter until the process is stopped.
   *
   * @param args {@code --port N} (50051 by default)
   */
  public static void main(String[] args) throws IOException, InterruptedException {
    int port = ExampleArgs.port(args, 50051);
    Server server = start(port, Ticker.system());
    Runtime.getRuntime().addShutdownHook(new Thread(server::shutdownNow));
    System.out.println(
        "Greeter on 127.0.0.1:"
            + server.getPort()
            + "; /helloworld.Greeter/SayHello allows 5 calls per 10 s per client address. Try:");
    System.out.println(
        "  ./mvnw -q -pl slidingwindow-examples-grpc -am compile exec:java"
            + " -Dexec.mainClass=io.slidingwindow.examples.grpc.GreeterClient"
            + " -Dexec.args=\"--port "
            + server.getPort()
            + " --calls 7\"");
    server.awaitTermination();
  }
}
