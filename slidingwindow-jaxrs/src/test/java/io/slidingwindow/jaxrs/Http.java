package io.slidingwindow.jaxrs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A real HTTP client for the tests, speaking HTTP/1.1: asked for an upgrade to h2c (the JDK
 * client's default), Jersey's Grizzly container sends a response that a filter aborted without its
 * Content-Type.
 */
final class Http {

  private static final HttpClient CLIENT =
      HttpClient.newBuilder()
          .version(HttpClient.Version.HTTP_1_1)
          .connectTimeout(Duration.ofSeconds(10))
          .build();

  private Http() {}

  /** GETs {@code uri} with headers given as name, value, name, value... */
  static HttpResponse<String> get(URI uri, String... headers) {
    return send("GET", uri, headers);
  }

  /** Sends {@code method}, without a body, to {@code uri} with headers given as name, value... */
  static HttpResponse<String> send(String method, URI uri, String... headers) {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(20))
            .method(method, HttpRequest.BodyPublishers.noBody());
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    try {
      return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
