package io.slidingwindow.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A Lua script read once from {@code META-INF/slidingwindow/}, with the SHA-1 digest that EVALSHA
 * names it by. Immutable.
 */
final class Script {

  static final Script LIMITER = load("limiter.lua");
  static final Script COUNTER = load("counter.lua");
  static final Script PROBE = load("probe.lua");

  private final String name;
  private final String text;
  private final String sha1;

  private Script(String name, String text) {
    this.name = name;
    this.text = text;
    this.sha1 = sha1(text);
  }

  static Script load(String name) {
    String path = "META-INF/slidingwindow/" + name;
    try (InputStream in = Script.class.getClassLoader().getResourceAsStream(path)) {
      if (in == null) {
        throw new IllegalStateException("missing resource " + path);
      }
      return new Script(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + path, e);
    }
  }

  String name() {
    return name;
  }

  String text() {
    return text;
  }

  String sha1() {
    return sha1;
  }

  private static String sha1(String text) {
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-1").digest(text.getBytes(StandardCharsets.UTF_8));
      StringBuilder hex = new StringBuilder(40);
      for (byte b : digest) {
        hex.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
      }
      return hex.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-1 is required of every Java platform", e);
    }
  }

  @Override
  public String toString() {
    return name + " (" + sha1 + ")";
  }
}
