package io.slidingwindow.spring.boot.web;

import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.util.ClassUtils;

/**
 * Warns at start-up when the application serves on a Reactor Netty release that can stop reading a
 * kept-alive HTTP/1.1 connection: 1.3.0 to 1.3.7 (reactor-netty issue 4361, fixed in 1.3.8). A
 * request queued behind one answered from another thread (a decision from Redis) and then answered
 * at once (a refusal the refusal cache knows) leaves the connection unread, and the client's next
 * request on it never gets an answer. The limiter cannot prevent that; the release can.
 */
final class ReactorNettyCheck implements SmartInitializingSingleton {

  private static final Logger LOG = LoggerFactory.getLogger(ReactorNettyCheck.class);
  private static final String SERVER = "reactor.netty.http.server.HttpServer";

  @Override
  public void afterSingletonsInstantiated() {
    ClassLoader loader = ReactorNettyCheck.class.getClassLoader();
    if (!ClassUtils.isPresent(SERVER, loader)) {
      return;
    }
    Package server = ClassUtils.resolveClassName(SERVER, loader).getPackage();
    warningFor(server == null ? null : server.getImplementationVersion()).ifPresent(LOG::warn);
  }

  /**
   * The warning for Reactor Netty {@code version} (as its jar's manifest gives it), or empty if
   * that release is not affected or the version is unknown.
   */
  static Optional<String> warningFor(String version) {
    if (version == null || !version.startsWith("1.3.")) {
      return Optional.empty();
    }
    String patch = version.substring("1.3.".length());
    int end = 0;
    while (end < patch.length() && Character.isDigit(patch.charAt(end))) {
      end++;
    }
    if (end == 0 || end > 3 || Integer.parseInt(patch.substring(0, end)) >= 8) {
      return Optional.empty();
    }
    return Optional.of(
        "slidingwindow: this application serves on Reactor Netty "
            + version
            + ", which can leave a kept-alive HTTP/1.1 connection unread after a request answered"
            + " from another thread (reactor-netty issue 4361): the client's next request then"
            + " gets no answer. Rate-limit decisions from Redis make that likely. Use"
            + " reactor-netty-http 1.3.8 or newer.");
  }
}
