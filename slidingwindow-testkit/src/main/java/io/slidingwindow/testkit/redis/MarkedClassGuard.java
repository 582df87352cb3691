package io.slidingwindow.testkit.redis;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Notes, for {@link WithoutRedisServer}, that a marked test class is running, so that a server
 * started meanwhile from any thread (an executor, a framework's own start-up) is refused too.
 * Registered by the mark; counts nested classes, whose callbacks run inside their outer class's.
 */
public final class MarkedClassGuard implements BeforeAllCallback, AfterAllCallback {

  @Override
  public void beforeAll(ExtensionContext context) {
    RedisTools.markedClassStarted(context.getRequiredTestClass());
  }

  @Override
  public void afterAll(ExtensionContext context) {
    RedisTools.markedClassEnded();
  }
}
