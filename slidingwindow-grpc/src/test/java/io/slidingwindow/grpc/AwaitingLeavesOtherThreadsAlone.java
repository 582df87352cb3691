package io.slidingwindow.grpc;

import org.awaitility.Awaitility;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Makes every Awaitility wait of this module's tests leave other threads' uncaught exceptions
 * alone, before any test class runs. Some tests here end calls with an {@link Error} that the
 * limiter throws on, as gRPC does, to the thread that ran the call (a server executor's thread); by
 * default Awaitility fails whatever wait is under way with such an exception, even one of a later
 * test whose server thread it is not. Registered in {@code
 * META-INF/services/org.junit.platform.launcher.LauncherSessionListener}.
 */
public final class AwaitingLeavesOtherThreadsAlone implements LauncherSessionListener {

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    Awaitility.doNotCatchUncaughtExceptionsByDefault();
  }
}
