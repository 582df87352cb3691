package io.slidingwindow.server;

import io.slidingwindow.testkit.browser.HeadlessChromium;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Takes the picture of the dashboard in {@code docs/server.md}: starts the service with the sample
 * configuration on free loopback ports, sends a minute of mixed traffic over HTTP, and saves what
 * headless Chromium shows at 1280 by 900 pixels. Not a test. Run from the repository root:
 *
 * <pre>
 * ./mvnw -q -o -pl slidingwindow-server -am test-compile exec:java \
 *   -Dexec.classpathScope=test -Dexec.mainClass=io.slidingwindow.server.DashboardScreenshot \
 *   -Dexec.args=$PWD/docs/images/dashboard.png
 * </pre>
 */
public final class DashboardScreenshot {

  private DashboardScreenshot() {}

  public static void main(String[] args) throws Exception {
    Path out = Path.of(args.length > 0 ? args[0] : "docs/images/dashboard.png").toAbsolutePath();
    Path dir = Files.createTempDirectory("slidingwindow-screenshot");
    Path config = dir.resolve("demo.yaml");
    try (InputStream sample =
        RateLimitServer.class.getResourceAsStream("/io/slidingwindow/server/sample-config.yaml")) {
      Files.copy(sample, config);
    }
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    try (RateLimitServer server =
            RateLimitServer.builder()
                .config(config)
                .host("127.0.0.1")
                .grpcPort(0)
                .httpPort(0)
                .adminPort(0)
                .reloadInterval(Duration.ZERO)
                .start();
        HeadlessChromium browser =
            new HeadlessChromium(HeadlessChromium.DEFAULT_BINARY, 1280, 900)) {
      String base = "http://127.0.0.1:" + server.httpPort();
      browser.navigate("http://127.0.0.1:" + server.adminPort() + "/dashboard");
      int seconds = 60;
      for (int second = 0; second < seconds; second++) {
        long start = System.nanoTime();
        List<CompletableFuture<?>> pending = new ArrayList<>();
        // Ten clients at a steady pace, one that bursts every few seconds, one always refused.
        for (int i = 0; i < 10; i++) {
          send(pending, client, base, 2 + (second + i) % 5, "remote_address", "198.51.100." + i);
        }
        send(pending, client, base, second % 10 < 4 ? 25 : 4, "remote_address", "203.0.113.7");
        send(pending, client, base, 3, "remote_address", "192.0.2.1");
        send(pending, client, base, 2, "api", "v1", "user", "alice");
        send(pending, client, base, second % 15 == 0 ? 12 : 0, "api", "v1", "user", "bob");
        send(pending, client, base, 1, "plan", "free");
        CompletableFuture.allOf(pending.toArray(CompletableFuture[]::new))
            .get(30, TimeUnit.SECONDS);
        if (second == seconds - 1) {
          break;
        }
        long left = TimeUnit.SECONDS.toNanos(1) - (System.nanoTime() - start);
        if (left > 0) {
          TimeUnit.NANOSECONDS.sleep(left);
        }
      }
      // Taken while the traffic still runs, so the charts do not end at zero.
      Files.createDirectories(out.getParent());
      Files.write(out, browser.screenshot());
      System.out.println("Saved " + out + "; page errors: " + browser.errors());
    }
  }

  private static void send(
      List<CompletableFuture<?>> pending,
      HttpClient client,
      String base,
      int n,
      String... keysAndValues)
      throws Exception {
    StringBuilder entries = new StringBuilder();
    for (int i = 0; i + 1 < keysAndValues.length; i += 2) {
      if (entries.length() > 0) {
        entries.append(',');
      }
      entries
          .append("{\"key\":\"")
          .append(keysAndValues[i])
          .append("\",\"value\":\"")
          .append(keysAndValues[i + 1])
          .append("\"}");
    }
    String body = "{\"domain\":\"demo\",\"descriptors\":[{\"entries\":[" + entries + "]}]}";
    for (int i = 0; i < n; i++) {
      pending.add(
          client.sendAsync(
              HttpRequest.newBuilder(URI.create(base + "/v1/decide"))
                  .timeout(Duration.ofSeconds(10))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.discarding()));
    }
  }
}
