package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.StatusRanges;
import io.slidingwindow.testkit.FakeTicker;
import jakarta.annotation.Priority;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Priorities;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.container.AsyncResponse;
import jakarta.ws.rs.container.CompletionCallback;
import jakarta.ws.rs.container.Suspended;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.StreamingOutput;
import jakarta.ws.rs.ext.WriterInterceptor;
import jakarta.ws.rs.ext.WriterInterceptorContext;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A client that hangs up in the middle of a large entity, on real servers, behind an application's
 * writer interceptor that ignores the failed write (an "ignore client abort" interceptor): the
 * answer is never settled, and stays counted, though the interceptor returned normally.
 */
class JaxrsClientGoneTest {

  private static final int CHUNK = 64 * 1024;

  private final FakeTicker ticker = new FakeTicker();
  private final Downloads downloads = new Downloads();
  private final IgnoreClientAbort ignoring = new IgnoreClientAbort();
  private JaxrsServers.Running server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /**
   * Answers {@code size} bytes, streamed in chunks; asynchronous so that a completion callback
   * tells when the runtime is done with the answer (written, settled or not).
   */
  @Path("/")
  public static class Downloads {
    final AtomicInteger completed = new AtomicInteger();

    @GET
    @Path("file")
    @Produces(MediaType.APPLICATION_OCTET_STREAM)
    public void file(@QueryParam("size") int size, @Suspended AsyncResponse async) {
      async.register((CompletionCallback) failure -> completed.incrementAndGet());
      StreamingOutput bytes =
          out -> {
            byte[] chunk = new byte[CHUNK];
            for (int sent = 0; sent < size; sent += CHUNK) {
              out.write(chunk, 0, Math.min(CHUNK, size - sent));
              out.flush();
            }
          };
      async.resume(bytes);
    }
  }

  /** An application's interceptor that ignores a client gone: it swallows the write's failure. */
  @Priority(Priorities.USER)
  public static class IgnoreClientAbort implements WriterInterceptor {
    final AtomicReference<IOException> ignored = new AtomicReference<>();

    @Override
    public void aroundWriteTo(WriterInterceptorContext context) {
      try {
        context.proceed();
      } catch (IOException gone) {
        ignored.compareAndSet(null, gone);
      }
    }
  }

  /**
   * GETs {@code path} on a plain socket, reads the head and some of the entity, so that the answer
   * was committed and flushed, then hangs up with a reset (unread bytes, no lingering).
   */
  private void hangUpMidway(String path) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), server.port())) {
      socket.setSoTimeout(10_000);
      socket
          .getOutputStream()
          .write(
              ("GET /app" + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      InputStream in = socket.getInputStream();
      byte[] head = in.readNBytes(12);
      assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 200");
      byte[] buffer = new byte[CHUNK];
      int read = 0;
      while (read < 4 * CHUNK) {
        int n = in.read(buffer);
        assertThat(n).as("bytes of the answer").isPositive();
        read += n;
      }
      socket.setSoLinger(true, 0);
    }
  }

  /**
   * The client hangs up after the head and a few chunks of a 64 MB answer; the application's
   * interceptor catches the write's IOException and returns. A rule counting only 5xx keeps the
   * permit: the next request is refused. Before, the filter's interceptor, the first, saw the
   * interceptor return normally and settled the answer at its 200, giving the permit back.
   */
  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void clientHangsUpMidEntity_interceptorIgnoresTheFailure_staysCounted(
      JaxrsServers.Implementation runtime) throws IOException {
    RateLimitFilter filter =
        RateLimitFilter.builder()
            .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
            .rule(
                HttpRule.builder("files")
                    .path("/file")
                    .limit(Limit.parse("1/1h"))
                    .countStatuses(StatusRanges.parse("500-599"))
                    .build())
            .build();
    server = JaxrsServers.start(runtime, List.of(downloads, ignoring, filter));

    hangUpMidway("/file?size=" + 64 * 1024 * 1024);
    await().atMost(Duration.ofSeconds(20)).until(() -> downloads.completed.get() == 1);

    assertThat(ignoring.ignored.get()).as("the write failed, and was ignored").isNotNull();
    assertThat(Http.get(server.uri("/file?size=1")).statusCode()).isEqualTo(429);
  }
}
