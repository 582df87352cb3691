package io.slidingwindow.server.admin;

import io.slidingwindow.server.decide.ServiceHealth;
import java.lang.System.Logger.Level;

/**
 * Logs one WARN line when the store failed decisions since the last check, with their count and the
 * store's state; run every {@link #PERIOD_SECONDS} seconds, so at most one such line per period
 * however many decisions fail. Not thread-safe: run it on one scheduler.
 */
public final class BackendWarnings implements Runnable {

  /** How often the count is checked, and so the least time between two lines. */
  public static final int PERIOD_SECONDS = 10;

  private static final System.Logger LOG = System.getLogger(BackendWarnings.class.getName());

  private final ServiceHealth health;
  private long reported;

  /** Warns of the failed decisions {@code health} counts. */
  public BackendWarnings(ServiceHealth health) {
    this.health = health;
    this.reported = health.backendErrors();
  }

  @Override
  public void run() {
    long now = health.backendErrors();
    long failed = now - reported;
    if (failed > 0) {
      reported = now;
      LOG.log(
          Level.WARNING,
          "{0,number,#} decisions in the last {1} s were answered by the failure policy: the store did not"
              + " answer in time, erred, or its circuit breaker was open; {2}",
          failed,
          PERIOD_SECONDS,
          health.describe());
    }
  }
}
