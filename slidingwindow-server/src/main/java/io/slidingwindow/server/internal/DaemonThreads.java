package io.slidingwindow.server.internal;

import java.util.concurrent.ThreadFactory;

/** Thread factories for the service's own pools, whose threads never keep the JVM alive. */
public final class DaemonThreads {

  private DaemonThreads() {}

  /** A factory of daemon threads, each called {@code name}. */
  public static ThreadFactory named(String name) {
    return runnable -> {
      Thread thread = new Thread(runnable, name);
      thread.setDaemon(true);
      return thread;
    };
  }
}
