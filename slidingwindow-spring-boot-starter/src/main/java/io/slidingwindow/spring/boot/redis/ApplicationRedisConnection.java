package io.slidingwindow.spring.boot.redis;

import io.slidingwindow.redis.RedisBackend;
import java.util.concurrent.atomic.AtomicBoolean;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.context.SmartLifecycle;

/**
 * The limiter's backend on the application's connection factory (a connection of its Lettuce
 * client, or its Jedis pool), closed just before that factory stops (a later phase stops first), so
 * that nothing is closed twice when the factory shuts its client down; closed on destruction too,
 * if the context never started.
 */
final class ApplicationRedisConnection implements SmartLifecycle, DisposableBean {

  private final RedisBackend backend;
  private final int phase;
  private final AtomicBoolean closed = new AtomicBoolean();
  private volatile boolean running;

  /** {@code factoryPhase}: the lifecycle phase of the application's connection factory. */
  ApplicationRedisConnection(RedisBackend backend, int factoryPhase) {
    this.backend = backend;
    this.phase = factoryPhase == Integer.MAX_VALUE ? factoryPhase : factoryPhase + 1;
  }

  RedisBackend backend() {
    return backend;
  }

  @Override
  public void start() {
    running = true;
  }

  @Override
  public void stop() {
    running = false;
    close();
  }

  @Override
  public boolean isRunning() {
    return running;
  }

  @Override
  public int getPhase() {
    return phase;
  }

  @Override
  public void destroy() {
    close();
  }

  private void close() {
    if (closed.compareAndSet(false, true)) {
      backend.close();
    }
  }
}
