package io.slidingwindow.boot4;

import reactor.blockhound.BlockHound;
import reactor.blockhound.integration.BlockHoundIntegration;

/**
 * Lets Lettuce 7's write lock wait on an event-loop thread under BlockHound. The lock is held only
 * while a thread counts itself in or out as a writer, so the wait is short; refused, it leaves the
 * connection's writer count broken for good ({@link LettuceUnderBlockHoundIT}). Lettuce ships no
 * BlockHound integration of its own. Registered through {@code META-INF/services}.
 */
public final class LettuceWriteLockAllowance implements BlockHoundIntegration {

  private static final String SHARED_LOCK = "io.lettuce.core.protocol.SharedLock";

  @Override
  public void applyTo(BlockHound.Builder builder) {
    builder.allowBlockingCallsInside(SHARED_LOCK, "incrementWriters");
    builder.allowBlockingCallsInside(SHARED_LOCK, "doExclusive");
  }
}
