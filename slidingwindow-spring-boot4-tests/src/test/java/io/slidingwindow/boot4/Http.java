package io.slidingwindow.boot4;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Requests through a real HTTP client, bounded in time. */
final class Http {

  /** One client for every request: requests reuse kept-alive connections, as browsers' do. */
  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(5))
          .build();

  private Http() {}

  /** GET {@code base + path}, with header {@code X-User: user} unless {@code user} is null. */
  static HttpResponse<String> get(URI base, String path, String user) {
    return user == null ? get(base, path, null, null) : get(base, path, "X-User", user);
  }

  /**
   * GET {@code base + path}, waiting at most {@code timeout} for the answer (instead of the 10
   * seconds of the other requests).
   */
  static HttpResponse<String> getWithin(URI base, String path, Duration timeout) {
    return send(HttpRequest.newBuilder(base.resolve(path)).timeout(timeout).GET(), "GET " + path);
  }

  /** GET {@code base + path}, with header {@code name: value} unless {@code name} is null. */
  static HttpResponse<String> get(URI base, String path, String name, String value) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(10)).GET();
    if (name != null) {
      request.header(name, value);
    }
    return send(request, "GET " + path);
  }

  /**
   * POST {@code json} to {@code base + path}, as {@code application/json}, with {@code headers}
   * (name, value, ...).
   */
  static HttpResponse<String> post(URI base, String path, String json, String... headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(10))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(json));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return send(request, "POST " + path);
  }

  private static HttpResponse<String> send(HttpRequest.Builder request, String what) {
    try {
      return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during " + what, e);
    }
  }
}
