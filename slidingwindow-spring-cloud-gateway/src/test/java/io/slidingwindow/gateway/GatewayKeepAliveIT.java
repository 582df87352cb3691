package io.slidingwindow.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.http.LoopbackBackend;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A kept-alive HTTP/1.1 connection stays served after a refusal of a request that waited behind
 * another on it. Reactor Netty 1.2 queues a request that arrives before the previous exchange has
 * ended; when the queued request is answered on the thread that dispatches it, that thread never
 * asks to read the connection again, and the next request waits unread until the client gives up.
 * The limiter decides a refusal at once (in memory; on Redis, a key its last reply left exhausted),
 * so the gateway must not write it on that thread.
 */
class GatewayKeepAliveIT {

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"memory", "redis"})
  void keptAliveConnection_refusalOfAQueuedRequest_nextRequestIsAnswered(String store)
      throws IOException {
    RedisServerProcess redis = store.equals("redis") ? RedisServerProcess.start() : null;
    Map<String, Object> properties = new HashMap<>();
    // gateway-test.yml serves one request per connection; this test needs the default, no limit.
    properties.put("gateway-test.keep-alive-requests", "-1");
    if (redis != null) {
      properties.put("slidingwindow.redis.uri", redis.uri());
    }
    try (LoopbackBackend backend = LoopbackBackend.start();
        ConfigurableApplicationContext gateway =
            GatewayTestApplication.start(backend.uri(), properties);
        Socket socket =
            new Socket(
                InetAddress.getLoopbackAddress(), GatewayTestApplication.uri(gateway).getPort())) {
      socket.setSoTimeout((int) Http.TIMEOUT.toMillis());
      OutputStream out = socket.getOutputStream();
      InputStream in = socket.getInputStream();
      // Route "orders": 3 per minute. Two granted one at a time, then the third (granted, so it
      // goes to the backend and ends later) and the fourth (refused at once) in one write, so that
      // the fourth is queued behind the third.
      for (int i = 1; i <= 2; i++) {
        out.write(request("/orders/" + i));
        assertThat(status(in)).as("request %d", i).isEqualTo(200);
      }
      out.write(concat(request("/orders/3"), request("/orders/4")));
      assertThat(status(in)).as("request 3").isEqualTo(200);
      assertThat(status(in)).as("request 4, queued behind 3").isEqualTo(429);

      out.write(request("/orders/5"));
      int fifth;
      try {
        fifth = status(in);
      } catch (SocketTimeoutException e) {
        throw new AssertionError(
            "request 5 on the same connection got no answer within " + Http.TIMEOUT, e);
      }
      assertThat(fifth).as("request 5, on the same connection").isEqualTo(429);
      assertThat(backend.hits()).as("requests that reached the backend").isEqualTo(3);
    } finally {
      if (redis != null) {
        redis.close();
      }
    }
  }

  private static byte[] request(String path) {
    return ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nX-User: kim\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  private static byte[] concat(byte[] first, byte[] second) {
    byte[] both = new byte[first.length + second.length];
    System.arraycopy(first, 0, both, 0, first.length);
    System.arraycopy(second, 0, both, first.length, second.length);
    return both;
  }

  /**
   * Reads one whole response from {@code in} (its body by Content-Length or chunked) and returns
   * its status.
   */
  private static int status(InputStream in) throws IOException {
    String head = line(in);
    int status = Integer.parseInt(head.split(" ")[1]);
    long length = 0;
    boolean chunked = false;
    for (String header = line(in); !header.isEmpty(); header = line(in)) {
      String lower = header.toLowerCase(Locale.ROOT);
      if (lower.startsWith("content-length:")) {
        length = Long.parseLong(lower.substring("content-length:".length()).trim());
      } else if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
        chunked = true;
      }
    }
    if (chunked) {
      for (long size = Long.parseLong(line(in).trim(), 16); size > 0; ) {
        skip(in, size);
        line(in);
        size = Long.parseLong(line(in).trim(), 16);
      }
      line(in);
    } else {
      skip(in, length);
    }
    return status;
  }

  private static String line(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    for (int b = in.read(); b != '\n'; b = in.read()) {
      if (b < 0) {
        throw new IOException("the gateway closed the connection");
      }
      if (b != '\r') {
        line.write(b);
      }
    }
    return line.toString(StandardCharsets.US_ASCII);
  }

  private static void skip(InputStream in, long count) throws IOException {
    for (long i = 0; i < count; i++) {
      if (in.read() < 0) {
        throw new IOException("the gateway closed the connection");
      }
    }
  }
}
