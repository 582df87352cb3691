package io.slidingwindow.spring.boot.web;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;

/** A real HTTP/1.1 client for the tests' embedded servers on 127.0.0.1. */
final class LoopbackHttp {

  private static final HttpClient CLIENT =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private LoopbackHttp() {}

  /** GET {@code path} on 127.0.0.1:{@code port} with {@code headers} (name, value, ...). */
  static HttpResponse<String> get(int port, String path, String... headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return CLIENT.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }
}
