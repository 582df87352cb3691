package io.slidingwindow.gateway;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.Map;

/** A real HTTP client for the integration tests; every call bounded by {@link #TIMEOUT}. */
final class Http {

  /**
   * The most any request may take. Every request here is answered in milliseconds; the bound ends a
   * hung one. It is not tighter because a build on two cores runs several test JVMs at once, and
   * one request of a module's run waited five seconds there once.
   */
  static final Duration TIMEOUT = Duration.ofSeconds(15);

  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(TIMEOUT).version(HttpClient.Version.HTTP_1_1).build();

  private Http() {}

  /** GETs {@code path} of {@code base}, with {@code X-User: user} unless {@code user} is null. */
  static HttpResponse<String> get(URI base, String path, String user) {
    return get(base, path, "X-User", user);
  }

  /** GETs {@code path} of {@code base}, with header {@code name: value} unless value is null. */
  static HttpResponse<String> get(URI base, String path, String name, String value) {
    return getWith(base, path, value == null ? Map.of() : Map.of(name, value));
  }

  /** GETs {@code path} of {@code base}, with {@code headers}. */
  static HttpResponse<String> getWith(URI base, String path, Map<String, String> headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(base.resolve(path)).timeout(TIMEOUT);
    headers.forEach(request::header);
    try {
      return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (HttpTimeoutException e) {
      // The gateway runs in this JVM: where its threads and the client's stand tells why.
      System.err.print(threadDump("GET " + path + " got no answer within " + TIMEOUT));
      throw new UncheckedIOException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Every thread's name, state and stack, under {@code title}. */
  private static String threadDump(String title) {
    StringBuilder dump = new StringBuilder(title).append(": threads of this JVM\n");
    for (Map.Entry<Thread, StackTraceElement[]> thread : Thread.getAllStackTraces().entrySet()) {
      dump.append('"')
          .append(thread.getKey().getName())
          .append("\" ")
          .append(thread.getKey().getState())
          .append('\n');
      for (StackTraceElement frame : thread.getValue()) {
        dump.append("    at ").append(frame).append('\n');
      }
    }
    return dump.toString();
  }
}
