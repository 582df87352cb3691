package io.slidingwindow.server.admin;

import io.slidingwindow.server.http.Exchange;
import io.slidingwindow.server.http.Router;
import java.lang.System.Logger.Level;
import java.util.HashSet;
import java.util.Locale;
import java.util.Set;
import java.util.function.Consumer;

/**
 * What the admin port does with each request it refuses before serving it (401 without the token,
 * 403 at a {@code Host} it does not answer or from a browser, 415 for a body not declared JSON):
 * counts it by reason ({@code slidingwindow_server_request_errors_total{transport="admin"}}) and
 * writes it on the audit logger ({@value OverrideRoutes#AUDIT_LOGGER}), the first refusal of each
 * reason and {@code Host} at INFO and later ones at DEBUG.
 *
 * <p>Why: a dashboard left open at a refused host name polls every second; one INFO line per poll
 * would bury the log, while its first line tells the operator which name to allow. The pairs
 * remembered are bounded: at most {@value #MAX_REMEMBERED}, each {@code Host} cut to {@value
 * #MAX_HOST_CHARS} characters; once that many are remembered, one INFO line says so and refusals of
 * further pairs are written at DEBUG (the counter still counts them all). Thread-safe: the set is
 * guarded by this object's lock, held for a lookup only, never while writing a line.
 */
final class AdminRefusals implements Router.Refusals {

  /** The most (reason, Host) pairs remembered. */
  static final int MAX_REMEMBERED = 256;

  /** The most characters of a {@code Host} written and remembered. */
  static final int MAX_HOST_CHARS = 100;

  private static final System.Logger AUDIT = System.getLogger(OverrideRoutes.AUDIT_LOGGER);

  private final Consumer<String> counter;
  private final Set<String> remembered = new HashSet<>();
  private boolean full;

  /** Refusals that {@code counter} counts, by reason. */
  AdminRefusals(Consumer<String> counter) {
    this.counter = counter;
  }

  @Override
  public void refused(Exchange exchange, String reason, int status, String message) {
    refused(reason, exchange.header("Host"), exchange.clientAddress(), status, message);
  }

  /**
   * Counts and writes a refusal for {@code reason} of a request with {@code host} (a {@code Host}
   * header, or null) from {@code client}, answered {@code status} with {@code message}.
   */
  void refused(String reason, String host, String client, int status, String message) {
    counter.accept(reason);
    String shown = shown(host);
    Remembered first = remember(reason + ' ' + shown);
    if (first == Remembered.NOW_FULL) {
      AUDIT.log(
          Level.INFO,
          "admin refusals: {0} reasons and Hosts written at INFO, the most remembered; refusals"
              + " at further ones are written at DEBUG and counted in"
              + " slidingwindow_server_request_errors_total'{'transport=\"admin\"'}'",
          MAX_REMEMBERED);
    }
    Level level = first == Remembered.NEW ? Level.INFO : Level.DEBUG;
    if (AUDIT.isLoggable(level)) {
      AUDIT.log(
          level,
          "admin refused: reason={0} status={1} host={2} client={3}: {4}{5}",
          reason,
          String.valueOf(status),
          shown,
          client,
          message,
          first == Remembered.NEW
              ? " (later refusals of this reason and Host are written at DEBUG)"
              : "");
    }
  }

  private enum Remembered {
    NEW,
    KNOWN,
    NOW_FULL
  }

  private synchronized Remembered remember(String key) {
    if (remembered.contains(key)) {
      return Remembered.KNOWN;
    }
    if (remembered.size() < MAX_REMEMBERED) {
      remembered.add(key);
      return Remembered.NEW;
    }
    if (full) {
      return Remembered.KNOWN;
    }
    full = true;
    return Remembered.NOW_FULL;
  }

  /**
   * {@code host} as written: trimmed, in lower case, cut to {@value #MAX_HOST_CHARS} characters,
   * each character outside printable ASCII as {@code ?}; {@code (none)} when null.
   */
  static String shown(String host) {
    if (host == null) {
      return "(none)";
    }
    String text = host.trim().toLowerCase(Locale.ROOT);
    StringBuilder shown = new StringBuilder(Math.min(text.length(), MAX_HOST_CHARS));
    for (int i = 0; i < text.length() && i < MAX_HOST_CHARS; i++) {
      char c = text.charAt(i);
      shown.append(c >= 0x20 && c < 0x7f ? c : '?');
    }
    return shown.toString();
  }
}
