package io.slidingwindow.server.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.channel.nio.NioEventLoopGroup;
import io.slidingwindow.server.settings.Settings;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A port that drains asks no client for a body: a request with {@code Expect: 100-continue} that
 * comes while a request in flight holds the drain is answered 503 and its connection closed, as a
 * request with its body is, never {@code 100 Continue}. Real port, raw sockets.
 */
class HttpPortDrainTest {

  private final NioEventLoopGroup group = new NioEventLoopGroup(2);
  private final CompletableFuture<Exchange> held = new CompletableFuture<>();
  private HttpPort port;

  @AfterEach
  void stop() {
    held.thenAccept(exchange -> exchange.respond(200, "text/plain", "late"));
    if (port != null) {
      port.close(TimeUnit.SECONDS.toNanos(1));
    }
    group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
  }

  @Test
  void expectContinue_whileDraining_answered503AndClosed_never100() throws Exception {
    Router router =
        new Router(null)
            .add("POST", "/hold", held::complete)
            .add("POST", "/v1/decide", exchange -> exchange.respond(200, "text/plain", "decided"));
    port =
        new HttpPort(
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
            router,
            new Settings.Http(Duration.ofSeconds(30), Duration.ofSeconds(30), 100),
            null,
            group,
            problem -> {});
    try (Socket holding = open();
        Socket late = open()) {
      send(late, "POST /v1/decide HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n");
      assertThat(readUntil(late, "decided")).startsWith("HTTP/1.1 200"); // open, kept alive
      send(holding, "POST /hold HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n");
      held.get(10, TimeUnit.SECONDS);
      CompletableFuture<Boolean> closing =
          CompletableFuture.supplyAsync(() -> port.close(TimeUnit.SECONDS.toNanos(20)));
      // close() stops accepting first: once a new connection is refused, the port drains
      awaitRefused();

      send(
          late,
          "POST /v1/decide HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n"
              + "Expect: 100-continue\r\nContent-Length: 2\r\n\r\n");

      String answer = readUntilClosed(late);
      assertThat(answer)
          .startsWith("HTTP/1.1 503")
          .contains("shutting down")
          .containsIgnoringCase("connection: close")
          .doesNotContain("100 Continue");
      assertThat(closing).isNotDone();
      held.get().respond(200, "text/plain", "held");
      assertThat(closing.get(20, TimeUnit.SECONDS)).isTrue();
    }
  }

  private Socket open() throws Exception {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), port.port());
    socket.setSoTimeout(15_000);
    return socket;
  }

  private void awaitRefused() {
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              try (Socket probe = new Socket(InetAddress.getLoopbackAddress(), port.port())) {
                return false;
              } catch (ConnectException e) {
                return true;
              }
            });
  }

  private static String readUntil(Socket socket, String end) throws Exception {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    while (!bytes.toString(StandardCharsets.US_ASCII).endsWith(end)) {
      int b = in.read();
      if (b < 0) {
        break;
      }
      bytes.write(b);
    }
    return bytes.toString(StandardCharsets.US_ASCII);
  }

  private static void send(Socket socket, String text) throws Exception {
    socket.getOutputStream().write(text.getBytes(StandardCharsets.US_ASCII));
    socket.getOutputStream().flush();
  }

  private static String readUntilClosed(Socket socket) throws Exception {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      in.transferTo(bytes);
    } catch (SocketTimeoutException e) {
      return bytes.toString(StandardCharsets.US_ASCII) + "<still open after 15 s>";
    }
    return bytes.toString(StandardCharsets.US_ASCII);
  }
}
