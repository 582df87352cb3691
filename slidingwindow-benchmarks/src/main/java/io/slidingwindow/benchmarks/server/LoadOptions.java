package io.slidingwindow.benchmarks.server;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The load generator's options; see {@link ServerLoad}. */
record LoadOptions(
    int port,
    String mode,
    int seconds,
    int warmupSeconds,
    List<Integer> concurrency,
    int channels,
    int values,
    double hotShare,
    int permits,
    long windowMillis,
    int capacity) {

  static LoadOptions parse(String[] args) {
    Map<String, String> given = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --option value, got '" + args[i] + "'");
      }
      given.put(args[i].substring(2), args[++i]);
    }
    LoadOptions o =
        new LoadOptions(
            Integer.parseInt(given.getOrDefault("port", "0")),
            given.getOrDefault("mode", "memory"),
            Integer.parseInt(given.getOrDefault("seconds", "10")),
            Integer.parseInt(given.getOrDefault("warmup", "3")),
            parseList(given.getOrDefault("concurrency", "64,256")),
            Integer.parseInt(given.getOrDefault("channels", "4")),
            Integer.parseInt(given.getOrDefault("values", "500")),
            Double.parseDouble(given.getOrDefault("hot-share", "0.5")),
            Integer.parseInt(
                given.getOrDefault("permits", Integer.toString(ServerLoad.DEFAULT_PERMITS))),
            Long.parseLong(
                given.getOrDefault("window-ms", Long.toString(ServerLoad.DEFAULT_WINDOW_MILLIS))),
            Integer.parseInt(given.getOrDefault("capacity", "4000000")));
    for (String name : given.keySet()) {
      if (!List.of(
              "port",
              "mode",
              "seconds",
              "warmup",
              "concurrency",
              "channels",
              "values",
              "hot-share",
              "permits",
              "window-ms",
              "capacity")
          .contains(name)) {
        throw new IllegalArgumentException("unknown option --" + name);
      }
    }
    o.validate();
    return o;
  }

  private static List<Integer> parseList(String text) {
    List<Integer> list = new ArrayList<>();
    for (String part : text.split(",", -1)) {
      list.add(Integer.parseInt(part.trim()));
    }
    return list;
  }

  private void validate() {
    require(port > 0 && port < 65536, "port", port);
    require(seconds > 0 && seconds <= 600, "seconds", seconds);
    require(warmupSeconds >= 0 && warmupSeconds <= 600, "warmup", warmupSeconds);
    for (int c : concurrency) {
      require(c > 0 && c <= 10_000, "concurrency", c);
    }
    require(channels > 0 && channels <= 64, "channels", channels);
    require(values > 0 && values <= 100_000, "values", values);
    require(hotShare >= 0 && hotShare <= 1, "hot-share", hotShare);
    require(permits > 0, "permits", permits);
    require(windowMillis >= 10, "window-ms", windowMillis);
    require(capacity > 0, "capacity", capacity);
  }

  private static void require(boolean ok, String name, Object value) {
    if (!ok) {
      throw new IllegalArgumentException("--" + name + " is out of range: " + value);
    }
  }

  long windowNanos() {
    return TimeUnit.MILLISECONDS.toNanos(windowMillis);
  }

  /** The slack {@link GrantCheck} takes off the window: a thousandth of it. */
  long slackNanos() {
    return windowNanos() / 1000;
  }
}
