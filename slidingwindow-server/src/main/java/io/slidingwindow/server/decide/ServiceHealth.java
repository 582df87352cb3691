package io.slidingwindow.server.decide;

import java.lang.System.Logger.Level;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;

/**
 * The service's health. Live while it runs, whatever its store does. Ready while it is not stopping
 * and its store answers: in memory always; on Redis as the last probe found it. Also counts the
 * decisions that the store failed (answered by the failure policy instead). Listeners hear every
 * change of readiness. Thread-safe.
 */
public final class ServiceHealth {

  private static final System.Logger LOG = System.getLogger(ServiceHealth.class.getName());

  private final String backend;
  private final String store;
  private final LongAdder backendErrors = new LongAdder();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private volatile boolean backendUp = true;
  private volatile String backendDetail;
  private volatile boolean stopping;

  /**
   * The health of a service counting in {@code store}.
   *
   * @param backend what kind of store: {@code memory} or {@code redis}
   * @param store which one, as the start-up line names it (without secrets)
   */
  public ServiceHealth(String backend, String store) {
    this.backend = backend;
    this.store = store;
  }

  /** Whether calls should be sent here: not stopping, and the store answers. */
  public boolean ready() {
    return backendUp && !stopping;
  }

  /** Calls {@code listener} after every change of {@link #ready()}. */
  public void onChange(Runnable listener) {
    listeners.add(listener);
  }

  /**
   * Records what the latest probe of the store found; a change is logged (one line) and heard by
   * the listeners.
   *
   * @param detail why it is down, or null
   */
  public void backend(boolean up, String detail) {
    boolean changed = up != backendUp;
    backendDetail = up ? null : detail;
    backendUp = up;
    if (changed) {
      if (up) {
        LOG.log(Level.INFO, "The store answers again ({0}): ready", store);
      } else {
        LOG.log(Level.WARNING, "The store does not answer ({0}): not ready; {1}", store, detail);
      }
      listeners.forEach(Runnable::run);
    }
  }

  /** Marks the service as stopping: no longer ready. */
  public void stopping() {
    stopping = true;
    listeners.forEach(Runnable::run);
  }

  /** Counts one decision that the store failed, answered by the failure policy. */
  public void backendFailed() {
    backendErrors.increment();
  }

  /** The decisions the store failed so far. */
  public long backendErrors() {
    return backendErrors.sum();
  }

  /**
   * The store and its state, for {@code /v1/stats} and the dashboard: {@code backend}, {@code
   * store}, {@code state} ({@code up} or {@code down}), {@code detail} while down, {@code errors}.
   */
  public Map<String, Object> describe() {
    Map<String, Object> view = new LinkedHashMap<>();
    view.put("backend", backend);
    view.put("store", store);
    view.put("state", backendUp ? "up" : "down");
    String detail = backendDetail;
    if (detail != null) {
      view.put("detail", detail);
    }
    view.put("errors", backendErrors());
    return view;
  }
}
