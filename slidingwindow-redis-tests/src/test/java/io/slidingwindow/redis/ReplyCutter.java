package io.slidingwindow.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback relay between a client and a real redis-server that can lose one reply: once {@link
 * #cutNextReply()} is called, the next bytes Redis sends on any connection are not passed on, and
 * that connection is closed on both sides. Redis has then run the command, and the client never
 * hears of it: the connection was lost between the two. Every other byte is passed on unchanged,
 * and the client may connect again at once. Daemon threads, one pair per connection.
 */
final class ReplyCutter implements AutoCloseable {

  private final ServerSocket listener;
  private final int redisPort;
  private final AtomicBoolean armed = new AtomicBoolean();
  private final AtomicInteger cuts = new AtomicInteger();
  private final AtomicInteger connections = new AtomicInteger();
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();

  ReplyCutter(int redisPort) throws IOException {
    this.redisPort = redisPort;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::acceptLoop, "reply-cutter-accept");
    accept.setDaemon(true);
    accept.start();
  }

  /** The URI a client connects to, in place of the server's. */
  String uri() {
    return "redis://127.0.0.1:" + listener.getLocalPort();
  }

  /** Loses the next reply Redis sends, and closes its connection. */
  void cutNextReply() {
    armed.set(true);
  }

  /** Passes every reply on again, if none was lost since {@link #cutNextReply()}. */
  void stopCutting() {
    armed.set(false);
  }

  /** The port clients connect to. */
  int port() {
    return listener.getLocalPort();
  }

  /** How many replies were lost so far. */
  int cuts() {
    return cuts.get();
  }

  /** How many connections clients have opened through this relay so far. */
  int connections() {
    return connections.get();
  }

  private void acceptLoop() {
    while (!listener.isClosed()) {
      try {
        Socket client = listener.accept();
        Socket redis = new Socket(InetAddress.getLoopbackAddress(), redisPort);
        client.setTcpNoDelay(true);
        redis.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(redis);
        connections.incrementAndGet();
        pump(client, redis, false);
        pump(redis, client, true);
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void pump(Socket from, Socket to, boolean replies) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[64 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                  if (replies && armed.compareAndSet(true, false)) {
                    cuts.incrementAndGet();
                    break; // the reply is lost: both sides are closed below
                  }
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException e) {
                // the other side closed
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "reply-cutter-" + (replies ? "replies" : "requests"));
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() throws IOException {
    listener.close();
    sockets.forEach(ReplyCutter::closeQuietly);
  }
}
