package io.slidingwindow.testkit.browser;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * A headless Chromium driven over the DevTools protocol (a WebSocket, with the JDK's client): opens
 * one page, evaluates expressions in it, and collects the errors the page reports (uncaught
 * exceptions, {@code console.error}, and the browser's own log errors such as failed loads and
 * Content-Security-Policy violations). Starts its own browser with a new profile directory and
 * stops it on {@link #close()}. Every wait is bounded.
 */
public final class HeadlessChromium implements AutoCloseable {

  /** Where Debian's {@code chromium} package installs the browser. */
  public static final Path DEFAULT_BINARY = Path.of("/usr/bin/chromium");

  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration CALL_TIMEOUT = Duration.ofSeconds(15);

  private final ObjectMapper json = new ObjectMapper();
  private final Process process;
  private final Path profile;
  private final WebSocket socket;
  private final AtomicInteger ids = new AtomicInteger();
  private final Map<Integer, CompletableFuture<JsonNode>> calls = new ConcurrentHashMap<>();
  private final List<String> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final StringBuilder partial = new StringBuilder();

  /**
   * Starts the browser at {@code binary} with a window of {@code width} by {@code height} pixels,
   * on a blank page.
   *
   * @throws IllegalStateException if the binary is missing or the browser does not come up
   */
  public HeadlessChromium(Path binary, int width, int height)
      throws IOException, InterruptedException {
    this(binary, width, height, List.of());
  }

  /**
   * Starts the browser at {@code binary} with a window of {@code width} by {@code height} pixels,
   * on a blank page, with {@code arguments} added to its command line: for example {@code
   * "--host-resolver-rules=MAP rebound.test 127.0.0.1"}, so that a host name the test makes up
   * resolves to a server of the test.
   *
   * @throws IllegalStateException if the binary is missing or the browser does not come up
   */
  public HeadlessChromium(Path binary, int width, int height, List<String> arguments)
      throws IOException, InterruptedException {
    if (!Files.isExecutable(binary)) {
      throw new IllegalStateException(
          "no Chromium at "
              + binary
              + ": this browser test needs it (Debian: apt-get install chromium), or set"
              + " -Dchromium.binary=PATH");
    }
    profile = Files.createTempDirectory("slidingwindow-chromium");
    List<String> command = new ArrayList<>();
    command.add(binary.toString());
    command.addAll(arguments);
    command.addAll(
        List.of(
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--no-default-browser-check",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-extensions",
            "--mute-audio",
            "--user-data-dir=" + profile,
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            "--window-size=" + width + "," + height,
            "about:blank"));
    process =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(profile.resolve("chromium.log").toFile())
            .start();
    try {
      int port = devToolsPort();
      HttpClient http = HttpClient.newBuilder().connectTimeout(CALL_TIMEOUT).build();
      String pageSocket =
          await("a page in Chromium")
              .atMost(START_TIMEOUT)
              .pollInterval(Duration.ofMillis(50))
              .until(() -> pageSocket(http, port), java.util.Objects::nonNull);
      socket =
          http.newWebSocketBuilder()
              .connectTimeout(CALL_TIMEOUT)
              .buildAsync(URI.create(pageSocket), new Listener())
              .get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
      call("Runtime.enable", json.createObjectNode());
      call("Log.enable", json.createObjectNode());
      call("Page.enable", json.createObjectNode());
    } catch (IOException | InterruptedException | RuntimeException e) {
      close();
      throw e;
    } catch (Exception e) {
      close();
      throw new IllegalStateException("could not connect to Chromium: " + e, e);
    }
  }

  private int devToolsPort() {
    Path portFile = profile.resolve("DevToolsActivePort");
    return await("Chromium's DevTools port")
        .atMost(START_TIMEOUT)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              if (!process.isAlive()) {
                throw new IllegalStateException(
                    "Chromium exited with " + process.exitValue() + ": " + log());
              }
              if (!Files.exists(portFile)) {
                return null;
              }
              List<String> lines = Files.readAllLines(portFile);
              return lines.isEmpty() || lines.get(0).isBlank()
                  ? null
                  : Integer.valueOf(lines.get(0).trim());
            },
            java.util.Objects::nonNull);
  }

  private String pageSocket(HttpClient http, int port) throws IOException, InterruptedException {
    HttpResponse<String> list =
        http.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/list"))
                .timeout(CALL_TIMEOUT)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    for (JsonNode target : json.readTree(list.body())) {
      if ("page".equals(target.path("type").asText())) {
        return target.path("webSocketDebuggerUrl").asText();
      }
    }
    return null;
  }

  private String log() {
    try {
      return Files.readString(profile.resolve("chromium.log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** Opens {@code url} in the page. */
  public void navigate(String url) throws Exception {
    ObjectNode params = json.createObjectNode().put("url", url);
    JsonNode result = call("Page.navigate", params);
    if (result.hasNonNull("errorText")) {
      throw new IllegalStateException("could not open " + url + ": " + result.get("errorText"));
    }
  }

  /** The value of a JavaScript expression evaluated in the page, as JSON (null for undefined). */
  public JsonNode evaluate(String expression) throws Exception {
    ObjectNode params =
        json.createObjectNode().put("expression", expression).put("returnByValue", true);
    JsonNode result = call("Runtime.evaluate", params);
    if (result.has("exceptionDetails")) {
      throw new IllegalStateException(
          "evaluating " + expression + " threw " + result.get("exceptionDetails"));
    }
    return result.path("result").path("value");
  }

  /** A PNG of the page as shown. */
  public byte[] screenshot() throws Exception {
    JsonNode result = call("Page.captureScreenshot", json.createObjectNode().put("format", "png"));
    return Base64.getDecoder().decode(result.get("data").asText());
  }

  /** The errors the page reported so far, one line each. */
  public List<String> errors() {
    return List.copyOf(errors);
  }

  private JsonNode call(String method, ObjectNode params) throws Exception {
    int id = ids.incrementAndGet();
    CompletableFuture<JsonNode> answer = new CompletableFuture<>();
    calls.put(id, answer);
    ObjectNode message = json.createObjectNode().put("id", id).put("method", method);
    message.set("params", params);
    socket
        .sendText(json.writeValueAsString(message), true)
        .get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    JsonNode reply = answer.get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
    if (reply.has("error")) {
      throw new IllegalStateException(method + " failed: " + reply.get("error"));
    }
    return reply.path("result");
  }

  private void onMessage(JsonNode message) {
    if (message.has("id")) {
      CompletableFuture<JsonNode> answer = calls.remove(message.get("id").asInt());
      if (answer != null) {
        answer.complete(message);
      }
      return;
    }
    String method = message.path("method").asText();
    JsonNode params = message.path("params");
    switch (method) {
      case "Runtime.exceptionThrown" -> {
        JsonNode details = params.path("exceptionDetails");
        errors.add(
            "uncaught: "
                + details
                    .path("exception")
                    .path("description")
                    .asText(details.path("text").asText())
                + " at "
                + details.path("url").asText()
                + ":"
                + details.path("lineNumber").asText());
      }
      case "Runtime.consoleAPICalled" -> {
        String type = params.path("type").asText();
        if (type.equals("error") || type.equals("assert")) {
          errors.add("console." + type + ": " + params.path("args"));
        }
      }
      case "Log.entryAdded" -> {
        JsonNode entry = params.path("entry");
        if (entry.path("level").asText().equals("error")) {
          errors.add(
              "log ("
                  + entry.path("source").asText()
                  + "): "
                  + entry.path("text").asText()
                  + " "
                  + entry.path("url").asText());
        }
      }
      default -> {}
    }
  }

  private final class Listener implements WebSocket.Listener {
    @Override
    public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
      partial.append(data);
      if (last) {
        String text = partial.toString();
        partial.setLength(0);
        try {
          onMessage(json.readTree(text));
        } catch (IOException e) {
          errors.add("unreadable DevTools message: " + e);
        }
      }
      webSocket.request(1);
      return null;
    }
  }

  @Override
  public void close() {
    if (socket != null) {
      socket.abort();
    }
    process.destroy();
    try {
      if (!process.waitFor(10, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    try (Stream<Path> files = Files.walk(profile)) {
      List<Path> all = new ArrayList<>(files.sorted(Comparator.reverseOrder()).toList());
      for (Path path : all) {
        Files.deleteIfExists(path);
      }
    } catch (IOException | UncheckedIOException e) {
      // A profile file Chromium still held, or one its helper processes removed while the
      // directory was walked; the temporary directory is left behind.
    }
  }
}
