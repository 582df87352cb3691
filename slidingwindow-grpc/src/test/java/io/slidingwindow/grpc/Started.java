package io.slidingwindow.grpc;

import io.grpc.ServerInterceptor;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * What a test started (servers, backends, executors), closed after it in the order started; use it
 * as a {@code @RegisterExtension} field.
 */
final class Started implements AfterEachCallback {

  private final List<AutoCloseable> resources = new ArrayList<>();

  /** Closes {@code resource} after the test; returns it. */
  <T extends AutoCloseable> T add(T resource) {
    resources.add(resource);
    return resource;
  }

  /** An executor of one thread named {@code name}, shut down after the test. */
  ExecutorService executor(String name) {
    ExecutorService executor =
        Executors.newSingleThreadExecutor(runnable -> new Thread(runnable, name));
    add(executor::shutdownNow);
    return executor;
  }

  /** A server whose services are wrapped by {@code interceptors}, the first outermost. */
  EchoServer server(ServerInterceptor... interceptors) {
    return add(EchoServer.start(interceptors));
  }

  /** As {@link #server(ServerInterceptor...)}, its calls run on the Netty event loop. */
  EchoServer directServer(ServerInterceptor... interceptors) {
    return add(EchoServer.start(true, interceptors));
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    for (AutoCloseable resource : resources) {
      resource.close();
    }
    resources.clear();
  }
}
