package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.netty.channel.Channel;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.lang.reflect.Field;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

/**
 * Lettuce 7 under BlockHound, which is installed in this JVM. Lettuce 7's endpoint guards each
 * write with a lock that may park for a moment when another thread is in the middle of a write; on
 * an event-loop thread BlockHound answers that park with an error thrown from inside the lock's
 * acquisition, and the endpoint's {@code finally} then releases a writer it never counted. Its
 * writer count goes negative and every later command or close on the connection spins for ever: the
 * hang seen in this module, where the Redis limiter sends a call from a reply's callback on the
 * event loop. {@code LettuceWriteLockAllowance} lets that short wait happen; this test shows it
 * taken and the connection usable after it. It reaches into Lettuce's internals (7.7 here).
 */
class LettuceUnderBlockHoundIT {

  private static final Duration BOUND = Duration.ofSeconds(10);

  @Test
  void writeFromTheEventLoop_whileAnotherThreadWrites_waitsAndLeavesTheConnectionUsable()
      throws Exception {
    try (RedisServerProcess server = RedisServerProcess.start()) {
      RedisClient client = RedisClient.create(RedisURI.create(server.uri()));
      StatefulRedisConnection<String, String> connection = client.connect();
      // A connection whose count went negative spins in close: closed on a thread of its own.
      Thread closing =
          new Thread(
              () -> {
                connection.close();
                client.shutdown();
              },
              "closing");
      closing.setDaemon(true);
      try {
        Object endpoint = endpointOf(connection);
        Object sharedLock = field(endpoint, "sharedLock");
        ReentrantLock writeLock = (ReentrantLock) field(sharedLock, "lock");
        Channel channel = (Channel) field(endpoint, "channel");
        CompletableFuture<String> fromTheEventLoop = new CompletableFuture<>();
        writeLock.lock(); // as another thread does for the moment it counts itself a writer
        try {
          channel
              .eventLoop()
              .execute(
                  () -> {
                    try {
                      var unused =
                          connection
                              .async()
                              .echo("from the event loop")
                              .whenComplete(
                                  (reply, failure) -> {
                                    if (failure != null) {
                                      fromTheEventLoop.completeExceptionally(failure);
                                    } else {
                                      fromTheEventLoop.complete(reply);
                                    }
                                  });
                    } catch (Throwable failure) {
                      fromTheEventLoop.completeExceptionally(failure);
                    }
                  });
          await()
              .atMost(BOUND)
              .until(() -> fromTheEventLoop.isDone() || writeLock.hasQueuedThreads());
        } finally {
          writeLock.unlock();
        }
        assertThat(fromTheEventLoop)
            .as("the event loop waited for the lock")
            .succeedsWithin(BOUND)
            .isEqualTo("from the event loop");
        assertThat((long) field(sharedLock, "writers")).as("writers once all is written").isZero();
        assertThat(connection.async().ping().get(BOUND.toSeconds(), TimeUnit.SECONDS))
            .isEqualTo("PONG");
      } finally {
        closing.start();
        closing.join(BOUND.toMillis());
      }
      assertThat(closing.isAlive()).as("still closing the connection").isFalse();
    }
  }

  /** The endpoint under the connection's writer, unwrapped from the command-expiry writer. */
  private static Object endpointOf(StatefulRedisConnection<String, String> connection)
      throws ReflectiveOperationException {
    Object writer = ((RedisChannelHandler<?, ?>) connection).getChannelWriter();
    while (!writer.getClass().getSimpleName().equals("DefaultEndpoint")) {
      writer = field(writer, "delegate");
    }
    return writer;
  }

  private static Object field(Object owner, String name) throws ReflectiveOperationException {
    for (Class<?> type = owner.getClass(); type != null; type = type.getSuperclass()) {
      try {
        Field field = type.getDeclaredField(name);
        field.setAccessible(true);
        return field.get(owner);
      } catch (NoSuchFieldException e) {
        // look in the superclass
      }
    }
    throw new NoSuchFieldException(name + " in " + owner.getClass());
  }
}
