package io.slidingwindow.benchmarks.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * BENCHMARK HARNESS support: one run of h2load (Debian's nghttp2-client) and what it printed. gRPC
 * calls are HTTP/2 POSTs of a framed message ({@link #grpcFrame}) with gRPC's headers; HTTP calls
 * are HTTP/1.1 POSTs ({@code --h1}), one at a time per connection.
 */
final class H2load {

  private static final Pattern FINISHED =
      Pattern.compile("finished in ([0-9.]+)(m?s), ([0-9.]+) req/s");
  private static final Pattern REQUESTS =
      Pattern.compile(
          "requests: (\\d+) total, (\\d+) started, (\\d+) done, (\\d+) succeeded, (\\d+) failed,"
              + " (\\d+) errored");

  /**
   * What a run measured.
   *
   * @param perSecond requests answered per second over the measured duration
   * @param succeeded requests answered with a 2xx status
   * @param failed requests answered otherwise, or not at all
   */
  record Result(double perSecond, long succeeded, long failed) {}

  private H2load() {}

  /**
   * {@code message} as a gRPC length-prefixed message: not compressed, 4-byte big-endian length.
   */
  static byte[] grpcFrame(byte[] message) {
    byte[] frame = new byte[5 + message.length];
    frame[1] = (byte) (message.length >>> 24);
    frame[2] = (byte) (message.length >>> 16);
    frame[3] = (byte) (message.length >>> 8);
    frame[4] = (byte) message.length;
    System.arraycopy(message, 0, frame, 5, message.length);
    return frame;
  }

  /**
   * Runs h2load against {@code url}, posting {@code data}, for {@code seconds} after {@code
   * warmupSeconds} of warm-up, from one thread.
   *
   * @param grpc whether the calls are gRPC over HTTP/2 ({@code clients} connections of {@code
   *     streams} streams each), else HTTP/1.1 ({@code clients} connections)
   */
  static Result run(
      String url, Path data, boolean grpc, int clients, int streams, int seconds, int warmupSeconds)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.addAll(
        List.of(
            "h2load",
            "-t",
            "1",
            "-c",
            Integer.toString(clients),
            "-D",
            seconds + "s",
            "--warm-up-time",
            warmupSeconds + "s",
            "-d",
            data.toString()));
    if (grpc) {
      command.addAll(
          List.of(
              "-m",
              Integer.toString(streams),
              "-H",
              "content-type: application/grpc",
              "-H",
              "te: trailers"));
    } else {
      command.addAll(List.of("--h1", "-H", "content-type: application/json"));
    }
    command.add(url);
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!process.waitFor(seconds + warmupSeconds + 60L, TimeUnit.SECONDS)
        || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IOException("h2load failed: " + command + "\n" + output);
    }
    return parse(output);
  }

  static Result parse(String output) throws IOException {
    Matcher finished = FINISHED.matcher(output);
    Matcher requests = REQUESTS.matcher(output);
    if (!finished.find() || !requests.find()) {
      throw new IOException("cannot read h2load's output:\n" + output);
    }
    long succeeded = Long.parseLong(requests.group(4));
    long failed = Long.parseLong(requests.group(5)) + Long.parseLong(requests.group(6));
    return new Result(Double.parseDouble(finished.group(3)), succeeded, failed);
  }
}
