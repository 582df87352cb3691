package io.slidingwindow.grpc;

import com.google.protobuf.StringValue;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.testkit.http.AttackTable;
import io.slidingwindow.testkit.http.WayIn;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;

/**
 * The attack table against the gRPC interceptor, on a real Netty server, its clients calling over
 * gRPC from loopback addresses of their own ({@link GrpcTransport}).
 */
class GrpcAttackTableTest {

  @TestFactory
  Stream<DynamicNode> attackTable() {
    return AttackTable.against(
        WayIn.named("gRPC interceptor", new GrpcTransport(), GrpcAttackTableTest::start));
  }

  /** A unary method of strings named {@code fullMethodName}. */
  static MethodDescriptor<StringValue, StringValue> method(String fullMethodName) {
    return MethodDescriptor.<StringValue, StringValue>newBuilder()
        .setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(fullMethodName)
        .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
        .setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
        .build();
  }

  /** The interceptor with the table's three rules, trusting the table's proxy. */
  static RateLimitServerInterceptor interceptor() {
    ClientAddresses clients = ClientAddresses.trusting(List.of(AttackTable.TRUSTED_PROXY));
    GrpcKeyResolver address = GrpcKeyResolver.peerAddress(clients);
    Metadata.Key<String> apiKey =
        Metadata.Key.of(
            AttackTable.API_KEY.toLowerCase(Locale.ROOT), Metadata.ASCII_STRING_MARSHALLER);
    GrpcKeyResolver issuedOrAddress =
        (call, headers, context) ->
            AttackTable.ISSUED_KEY.equals(headers.get(apiKey))
                ? RequestKey.custom(AttackTable.ISSUED_KEY)
                : address.key(call, headers, context);
    GrpcKeyResolver faulty =
        (call, headers, context) -> {
          String key =
              AttackTable.faultyKey(
                  name ->
                      headers.get(
                          Metadata.Key.of(
                              name.toLowerCase(Locale.ROOT), Metadata.ASCII_STRING_MARSHALLER)));
          return key == null ? null : RequestKey.custom(key);
        };
    return RateLimitServerInterceptor.builder()
        .clientAddresses(clients)
        .rule(rule("limited", issuedOrAddress))
        .rule(rule("raw", GrpcKeyResolver.metadata(AttackTable.API_KEY, clients)))
        .rule(rule("faulty", faulty))
        .build();
  }

  private static GrpcRateLimitRule rule(String service, GrpcKeyResolver key) {
    return GrpcRateLimitRule.builder(service)
        .method(service + "/*")
        .limit(AttackTable.LIMIT)
        .key(key)
        .build();
  }

  /**
   * A server with the services {@code limited}, {@code raw} and {@code faulty}, each with the one
   * method {@code a} (the table's {@code /limited/a}, ...) answering the table's marker.
   */
  static WayIn start() {
    RateLimitServerInterceptor limit = interceptor();
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    for (String service : List.of("limited", "raw", "faulty")) {
      ServerServiceDefinition definition =
          ServerServiceDefinition.builder(service)
              .addMethod(
                  method(service + "/a"),
                  ServerCalls.asyncUnaryCall(
                      (request, response) -> {
                        response.onNext(StringValue.of(AttackTable.MARKER));
                        response.onCompleted();
                      }))
              .build();
      builder.addService(ServerInterceptors.intercept(definition, limit));
    }
    try {
      Server server = builder.build().start();
      return WayIn.of(server.getPort(), () -> stop(server));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static void stop(Server server) {
    try {
      server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
