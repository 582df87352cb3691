package io.slidingwindow.server.config;

import io.slidingwindow.server.ConfigException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Test helpers that parse configurations from text and from test resources. */
public final class Configs {

  private Configs() {}

  public static RateLimitConfig parse(String text) throws ConfigException {
    return ConfigParser.parse(List.of(new ConfigParser.Source("test.yaml", text)));
  }

  public static RateLimitConfig resources(String... names) throws ConfigException {
    List<ConfigParser.Source> sources = new ArrayList<>();
    for (String name : names) {
      sources.add(new ConfigParser.Source(name, resource(name)));
    }
    return ConfigParser.parse(sources);
  }

  public static String resource(String name) {
    try (InputStream in = Configs.class.getResourceAsStream("/" + name)) {
      if (in == null) {
        throw new IllegalArgumentException("no test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
