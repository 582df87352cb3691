package io.slidingwindow.grpc;

import com.google.protobuf.StringValue;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BiConsumer;
import java.util.function.Consumer;

/**
 * A real gRPC server on Netty over 127.0.0.1 with a hand-written service (no generated code), and a
 * real client channel to it: {@code test.Echo/Say} (unary), {@code test.Echo/Chat} (bidi
 * streaming), {@code test.Echo/Upload} (client streaming), {@code test.Other/Ping} (unary) and
 * {@code test.Auth/Login} (unary, answering as its request says: {@code good} OK, {@code bad}
 * UNAUTHENTICATED, {@code throw} throws, {@code hold} is held until the test ends it).
 */
final class EchoServer implements AutoCloseable {

  static final MethodDescriptor<StringValue, StringValue> SAY = method("test.Echo/Say", false);
  static final MethodDescriptor<StringValue, StringValue> CHAT = method("test.Echo/Chat", true);
  static final MethodDescriptor<StringValue, StringValue> UPLOAD =
      MethodDescriptor.<StringValue, StringValue>newBuilder()
          .setType(MethodDescriptor.MethodType.CLIENT_STREAMING)
          .setFullMethodName("test.Echo/Upload")
          .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
          .build();
  static final MethodDescriptor<StringValue, StringValue> PING = method("test.Other/Ping", false);
  static final MethodDescriptor<StringValue, StringValue> LOGIN = method("test.Auth/Login", false);
  static final MethodDescriptor<StringValue, StringValue> LOGIN_STREAM =
      method("test.Auth/LoginStream", true);

  /** The {@code hold} logins not yet ended, in the order they reached the handler. */
  final ConcurrentLinkedQueue<StreamObserver<StringValue>> held = new ConcurrentLinkedQueue<>();

  /** How many {@code hold} logins the client cancelled (or whose deadline passed) meanwhile. */
  final AtomicInteger cancelledLogins = new AtomicInteger();

  /**
   * How each login stream's handler heard its call end, in order: {@code complete} ({@code
   * onComplete}) or {@code cancel} ({@code onCancel}).
   */
  final ConcurrentLinkedQueue<String> loginStreamEnds = new ConcurrentLinkedQueue<>();

  /** Every request message a handler received, as "method:text". */
  final ConcurrentLinkedQueue<String> received = new ConcurrentLinkedQueue<>();

  /** The threads the handlers ran on. */
  final ConcurrentLinkedQueue<String> handlerThreads = new ConcurrentLinkedQueue<>();

  private final Server server;
  private final ManagedChannel channel;

  private EchoServer(Server server) {
    this.server = server;
    this.channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.getPort()).usePlaintext().build();
  }

  /**
   * Options whose deadline is 20 seconds from now: a fresh deadline for each call, never one set
   * when a test class was loaded.
   */
  static CallOptions options() {
    return CallOptions.DEFAULT.withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  static MethodDescriptor<StringValue, StringValue> method(String name, boolean streaming) {
    return MethodDescriptor.<StringValue, StringValue>newBuilder()
        .setType(
            streaming
                ? MethodDescriptor.MethodType.BIDI_STREAMING
                : MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(name)
        .setRequestMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
        .setResponseMarshaller(ProtoUtils.marshaller(StringValue.getDefaultInstance()))
        .build();
  }

  /** Starts a server whose services are wrapped by {@code interceptors}, the first outermost. */
  static EchoServer start(ServerInterceptor... interceptors) {
    return start(false, interceptors);
  }

  /**
   * Starts a server; with {@code direct} its calls run on the Netty event loop (a direct executor),
   * so that anything that blocks in an interceptor blocks the loop.
   */
  static EchoServer start(boolean direct, ServerInterceptor... interceptors) {
    EchoServer[] self = new EchoServer[1];
    ServerServiceDefinition echo =
        ServerServiceDefinition.builder("test.Echo")
            .addMethod(
                SAY,
                ServerCalls.asyncUnaryCall(
                    (request, response) -> {
                      self[0].record("Say", request.getValue());
                      response.onNext(StringValue.of("hello " + request.getValue()));
                      response.onCompleted();
                    }))
            .addMethod(
                CHAT,
                ServerCalls.asyncBidiStreamingCall(response -> self[0].echo("Chat", response)))
            .addMethod(
                UPLOAD,
                ServerCalls.asyncClientStreamingCall(response -> self[0].count("Upload", response)))
            .build();
    ServerServiceDefinition other =
        ServerServiceDefinition.builder("test.Other")
            .addMethod(
                PING,
                ServerCalls.asyncUnaryCall(
                    (request, response) -> {
                      self[0].record("Ping", request.getValue());
                      response.onNext(StringValue.of("pong"));
                      response.onCompleted();
                    }))
            .build();
    ServerServiceDefinition auth =
        ServerServiceDefinition.builder("test.Auth")
            .addMethod(
                LOGIN,
                ServerCalls.asyncUnaryCall(
                    (request, response) -> self[0].login(request.getValue(), response)))
            .addMethod(
                LOGIN_STREAM,
                ServerCalls.asyncBidiStreamingCall(response -> self[0].loginStream(response)))
            .build();
    List<ServerInterceptor> reversed = new ArrayList<>(List.of(interceptors));
    Collections.reverse(reversed);
    NettyServerBuilder builder =
        NettyServerBuilder.forAddress(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))
            .addService(ServerInterceptors.intercept(echo, reversed))
            .addService(ServerInterceptors.intercept(other, reversed))
            .addService(ServerInterceptors.intercept(auth, reversed));
    if (direct) {
      builder.directExecutor();
    }
    try {
      self[0] = new EchoServer(builder.build().start());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return self[0];
  }

  private void record(String method, String text) {
    received.add(method + ":" + text);
    handlerThreads.add(Thread.currentThread().getName());
  }

  private void login(String text, StreamObserver<StringValue> response) {
    record("Login", text);
    switch (text) {
      case "good" -> {
        response.onNext(StringValue.of("welcome"));
        response.onCompleted();
      }
      case "bad" -> response.onError(Status.UNAUTHENTICATED.asRuntimeException());
      case "throw" -> throw new IllegalStateException("the login handler failed");
      case "hold" -> {
        ((ServerCallStreamObserver<StringValue>) response)
            .setOnCancelHandler(cancelledLogins::incrementAndGet);
        held.add(response);
      }
      default -> throw new IllegalArgumentException(text);
    }
  }

  /**
   * A login that takes one password per message: {@code good} is answered {@code welcome} and ends
   * the call OK, anything else is answered {@code wrong password}; a client that half-closes
   * without a good one gets UNAUTHENTICATED. A call the client cancels is closed with the error the
   * handler is told of (CANCELLED), which the client never receives. The password {@code error}
   * makes the handler throw an {@link Error}, as a parser overflowing its stack does.
   */
  private StreamObserver<StringValue> loginStream(StreamObserver<StringValue> response) {
    ((ServerCallStreamObserver<StringValue>) response)
        .setOnCloseHandler(() -> loginStreamEnds.add("complete"));
    return new StreamObserver<>() {
      private boolean done;

      @Override
      public void onNext(StringValue value) {
        record("LoginStream", value.getValue());
        if (done) {
          return;
        }
        if (value.getValue().equals("error")) {
          throw new StackOverflowError("the password parser overflowed its stack");
        }
        if (value.getValue().equals("good")) {
          done = true;
          response.onNext(StringValue.of("welcome"));
          response.onCompleted();
        } else {
          response.onNext(StringValue.of("wrong password"));
        }
      }

      @Override
      public void onError(Throwable t) {
        // the client cancelled (or its deadline passed): passed on, as many handlers do
        loginStreamEnds.add("cancel");
        cancelledLogins.incrementAndGet();
        response.onError(t);
      }

      @Override
      public void onCompleted() {
        if (!done) {
          response.onError(Status.UNAUTHENTICATED.asRuntimeException());
        }
      }
    };
  }

  /**
   * Ends the oldest held login with {@code code} (OK with a reply); false if none is held. A login
   * the client cancelled is ended too, as a handler that does not look may end it.
   */
  boolean release(Status.Code code) {
    StreamObserver<StringValue> response = held.poll();
    if (response == null) {
      return false;
    }
    if (code == Status.Code.OK) {
      response.onNext(StringValue.of("welcome"));
      response.onCompleted();
    } else {
      response.onError(Status.fromCode(code).asRuntimeException());
    }
    return true;
  }

  /** Logs in with {@code text}: the code the call ended with, OK included. */
  Status.Code login(String text) {
    return login(text, Map.of());
  }

  /** Logs in with {@code text} and metadata {@code headers}: the code the call ended with. */
  Status.Code login(String text, Map<String, String> headers) {
    try {
      call(LOGIN, text, headers);
      return Status.Code.OK;
    } catch (StatusRuntimeException e) {
      return e.getStatus().getCode();
    }
  }

  /**
   * Starts a login with {@code text} and {@code options} without waiting: its call (to cancel), and
   * the code it ends with.
   */
  Pending startLogin(String text, CallOptions options) {
    ClientCall<StringValue, StringValue> call = channel.newCall(LOGIN, options);
    CompletableFuture<Status.Code> done = new CompletableFuture<>();
    ClientCalls.asyncUnaryCall(
        call,
        StringValue.of(text),
        replies(reply -> {}, (status, trailers) -> done.complete(status.getCode())));
    return new Pending(call, done);
  }

  /**
   * A client's observer of replies that hands each reply to {@code onReply} and the end of the call
   * to {@code onEnd}: its status ({@code OK} included) and trailers (empty after {@code OK}, null
   * if the error carried none).
   */
  static StreamObserver<StringValue> replies(
      Consumer<String> onReply, BiConsumer<Status, Metadata> onEnd) {
    return new StreamObserver<>() {
      @Override
      public void onNext(StringValue value) {
        onReply.accept(value.getValue());
      }

      @Override
      public void onError(Throwable t) {
        onEnd.accept(Status.fromThrowable(t), Status.trailersFromThrowable(t));
      }

      @Override
      public void onCompleted() {
        onEnd.accept(Status.OK, new Metadata());
      }
    };
  }

  /** A login under way: its call, and the code it ends with. */
  record Pending(ClientCall<StringValue, StringValue> call, CompletableFuture<Status.Code> code) {}

  private StreamObserver<StringValue> echo(String method, StreamObserver<StringValue> response) {
    return new StreamObserver<>() {
      @Override
      public void onNext(StringValue value) {
        record(method, value.getValue());
        response.onNext(value);
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        response.onCompleted();
      }
    };
  }

  private StreamObserver<StringValue> count(String method, StreamObserver<StringValue> response) {
    AtomicInteger count = new AtomicInteger();
    return new StreamObserver<>() {
      @Override
      public void onNext(StringValue value) {
        record(method, value.getValue());
        count.incrementAndGet();
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {
        response.onNext(StringValue.of(Integer.toString(count.get())));
        response.onCompleted();
      }
    };
  }

  int port() {
    return server.getPort();
  }

  /**
   * Calls {@code method} once with {@code text} and metadata {@code headers}; throws on failure.
   */
  String call(
      MethodDescriptor<StringValue, StringValue> method, String text, Map<String, String> headers) {
    return ClientCalls.blockingUnaryCall(
            ClientInterceptors.intercept(channel, metadata(headers)),
            method,
            options(),
            StringValue.of(text))
        .getValue();
  }

  String say(String text) {
    return call(SAY, text, Map.of());
  }

  /** What a stream got back: the replies, and the status it ended with. */
  record Stream(List<String> replies, Status status, Metadata trailers) {}

  /** Sends {@code texts} on one {@code method} stream, then half-closes; waits for its end. */
  Stream stream(
      MethodDescriptor<StringValue, StringValue> method,
      List<String> texts,
      Map<String, String> headers) {
    ClientCall<StringValue, StringValue> call =
        ClientInterceptors.intercept(channel, metadata(headers)).newCall(method, options());
    List<String> replies = Collections.synchronizedList(new ArrayList<>());
    CompletableFuture<Stream> done = new CompletableFuture<>();
    StreamObserver<StringValue> requests =
        ClientCalls.asyncBidiStreamingCall(
            call,
            replies(
                replies::add,
                (status, trailers) ->
                    done.complete(new Stream(List.copyOf(replies), status, trailers))));
    texts.forEach(text -> requests.onNext(StringValue.of(text)));
    requests.onCompleted();
    try {
      return done.get(20, TimeUnit.SECONDS);
    } catch (InterruptedException | ExecutionException | TimeoutException e) {
      throw new IllegalStateException("the stream did not end", e);
    }
  }

  private static ClientInterceptor metadata(Map<String, String> headers) {
    Metadata metadata = new Metadata();
    headers.forEach(
        (name, value) ->
            metadata.put(Metadata.Key.of(name, Metadata.ASCII_STRING_MARSHALLER), value));
    return MetadataUtils.newAttachHeadersInterceptor(metadata);
  }

  ManagedChannel channel() {
    return channel;
  }

  @Override
  public void close() {
    try {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
      server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
