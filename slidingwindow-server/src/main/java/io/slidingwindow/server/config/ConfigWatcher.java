package io.slidingwindow.server.config;

import io.slidingwindow.server.ConfigException;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Loads the configuration from a file, or from every {@code .yaml} and {@code .yml} file of a
 * directory (in name order, one domain each), and reloads it when their content changes.
 *
 * <p>{@link #check()} reads the files and, if anything differs from the last read, parses them and
 * hands the result to the {@link Listener}. A configuration that fails to read or parse is not
 * applied: the last good one stays in force, the error is logged and kept for {@link #lastError()},
 * and the same bad content is not reported again. Files that cannot be read (gone for a moment
 * while they are replaced) are read and applied again once they can be, even if unchanged, so that
 * the read error does not outlive its cause. Whoever owns the watcher decides when to call {@link
 * #check()} (the server on a schedule, tests directly). Thread-safe: checks are serialized.
 */
public final class ConfigWatcher {

  /** Who uses the configurations the watcher reads. */
  public interface Listener {

    /**
     * Uses {@code config} from now on.
     *
     * @throws ConfigException if it cannot be used; the old one then stays in force
     */
    void apply(RateLimitConfig config) throws ConfigException;

    /** Told after each reload of changed files, whether it succeeded or not. */
    void reloaded(boolean success);
  }

  private static final System.Logger LOG = System.getLogger(ConfigWatcher.class.getName());

  private final Path path;
  private Listener listener;
  private List<ConfigParser.Source> lastRead;
  private volatile String lastError;

  /** Creates a watcher of {@code path}, a file or directory. */
  public ConfigWatcher(Path path) {
    this.path = path;
  }

  /**
   * Reads and parses the configuration for the first time.
   *
   * @throws ConfigException naming the file and line of the first fault, or the file that could not
   *     be read
   */
  public synchronized RateLimitConfig load() throws ConfigException {
    List<ConfigParser.Source> sources = read();
    RateLimitConfig config = ConfigParser.parse(sources);
    lastRead = sources;
    return config;
  }

  /** Sets who {@link #check()} hands new configurations to. */
  public synchronized void attach(Listener listener) {
    this.listener = listener;
  }

  /** As {@link #check}, for a scheduled task: what it throws is logged, never passed on. */
  public void checkQuietly() {
    try {
      check();
    } catch (RuntimeException e) {
      LOG.log(Level.ERROR, "Configuration reload failed", e);
    }
  }

  /**
   * Reloads if the files changed.
   *
   * @return whether a new configuration was applied
   */
  public synchronized boolean check() {
    List<ConfigParser.Source> sources;
    try {
      sources = read();
    } catch (ConfigException e) {
      // Forget what was read last: when the files can be read again, even unchanged, they are
      // parsed and applied again, which clears this error instead of leaving it shown for good.
      lastRead = null;
      fail(e.getMessage(), null);
      return false;
    }
    if (sources.equals(lastRead)) {
      return false;
    }
    lastRead = sources;
    try {
      RateLimitConfig config = ConfigParser.parse(sources);
      listener.apply(config);
      lastError = null;
      listener.reloaded(true);
      LOG.log(
          Level.INFO,
          "Reloaded rate limit configuration from " + path + ": domains " + config.domains());
      return true;
    } catch (ConfigException e) {
      fail(e.getMessage(), e);
      return false;
    }
  }

  private void fail(String message, Exception cause) {
    if (message.equals(lastError)) {
      return;
    }
    lastError = message;
    listener.reloaded(false);
    String text = "Kept the last good rate limit configuration; the new one is bad: " + message;
    if (cause == null) {
      LOG.log(Level.ERROR, text);
    } else {
      LOG.log(Level.ERROR, text, cause); // an I/O failure: its trace says where
    }
  }

  /** The error of the last reload, or null if it succeeded (or none failed yet). */
  public String lastError() {
    return lastError;
  }

  /** The watched file or directory. */
  public Path path() {
    return path;
  }

  private List<ConfigParser.Source> read() throws ConfigException {
    List<Path> files = new ArrayList<>();
    try {
      if (Files.isDirectory(path)) {
        try (Stream<Path> listing = Files.list(path)) {
          listing
              .filter(
                  p ->
                      p.getFileName().toString().endsWith(".yaml")
                          || p.getFileName().toString().endsWith(".yml"))
              .filter(Files::isRegularFile)
              .sorted()
              .forEach(files::add);
        }
        if (files.isEmpty()) {
          throw new ConfigException(path + ": the directory holds no .yaml or .yml file");
        }
      } else {
        files.add(path);
      }
      List<ConfigParser.Source> sources = new ArrayList<>();
      for (Path file : files) {
        sources.add(
            new ConfigParser.Source(
                file.getFileName().toString(),
                new String(Files.readAllBytes(file), StandardCharsets.UTF_8)));
      }
      return sources;
    } catch (IOException e) {
      throw new ConfigException(path + ": cannot read the configuration: " + e, e);
    }
  }
}
