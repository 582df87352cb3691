package io.slidingwindow.testkit.redis;

import java.util.Locale;

/**
 * Which server the Redis test harness starts: Redis itself or Valkey, its protocol-compatible fork.
 * Chosen once per JVM by the system property {@value #PROPERTY} ({@code redis}, the default, or
 * {@code valkey}), so the same integration tests run against either; the build runs them once for
 * each.
 */
public enum ServerFlavor {
  /** {@code redis-server} and {@code redis-cli}, from Debian's {@code redis-server redis-tools}. */
  REDIS("redis-server", "redis-cli", "apt-get install -y redis-server redis-tools"),
  /**
   * {@code valkey-server} and {@code valkey-cli}, from Debian's {@code valkey-server valkey-tools}
   * (bookworm-backports on Debian 12).
   */
  VALKEY(
      "valkey-server",
      "valkey-cli",
      "apt-get install -y -t bookworm-backports valkey-server valkey-tools");

  /** The system property naming the flavor: {@code redis} or {@code valkey}. */
  public static final String PROPERTY = "slidingwindow.test.server";

  private final String server;
  private final String cli;
  private final String install;

  ServerFlavor(String server, String cli, String install) {
    this.server = server;
    this.cli = cli;
    this.install = install;
  }

  /**
   * The flavor named by {@value #PROPERTY}; {@link #REDIS} when it is unset or blank.
   *
   * @throws IllegalStateException if it names neither flavor
   */
  public static ServerFlavor current() {
    return parse(System.getProperty(PROPERTY));
  }

  static ServerFlavor parse(String value) {
    if (value == null || value.isBlank()) {
      return REDIS;
    }
    try {
      return valueOf(value.trim().toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException(
          PROPERTY + " must be redis or valkey, but was '" + value + "'", e);
    }
  }

  /** The server binary's name, looked up on the {@code PATH}. */
  public String serverBinary() {
    return server;
  }

  /** The command-line client's name, looked up on the {@code PATH}. */
  public String cliBinary() {
    return cli;
  }

  /** The Debian command that installs both binaries. */
  public String installCommand() {
    return install;
  }
}
