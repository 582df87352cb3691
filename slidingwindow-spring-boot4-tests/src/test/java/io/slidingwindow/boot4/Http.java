package io.slidingwindow.boot4;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** GET requests through a real HTTP client, bounded in time. */
final class Http {

  private Http() {}

  /** GET {@code base + path}, with header {@code X-User: user} unless {@code user} is null. */
  static HttpResponse<String> get(URI base, String path, String user) {
    return user == null ? get(base, path, null, null) : get(base, path, "X-User", user);
  }

  /** GET {@code base + path}, with header {@code name: value} unless {@code name} is null. */
  static HttpResponse<String> get(URI base, String path, String name, String value) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(base.resolve(path)).timeout(Duration.ofSeconds(30)).GET();
    if (name != null) {
      request.header(name, value);
    }
    try {
      // A client, and so a connection, per request: on Boot 4 WebFlux a request that follows a
      // refusal on the same kept-alive connection has been seen to get no answer at all, an open
      // defect that a shared connection would turn into an intermittent failure of every test.
      HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
      return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted during GET " + path, e);
    }
  }
}
