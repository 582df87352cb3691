package io.slidingwindow.spring.boot.web;

import io.slidingwindow.http.ClientAddresses;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.env.Environment;
import org.springframework.util.ClassUtils;

/**
 * Warns at start-up when the application believes forwarded headers from any peer: then any client
 * can write another client's address into {@code X-Forwarded-For} (or {@code Forwarded}) and spend
 * that client's quota, or escape its own, whatever the rules say.
 *
 * <p>It warns for {@code server.forward-headers-strategy=framework} (Spring's {@code
 * ForwardedHeaderFilter} believes every request), for {@code native} (also the default on a cloud
 * platform) on Jetty and Undertow, which believe every peer, and on Tomcat unless {@code
 * server.tomcat.remoteip.internal-proxies} names the proxies (its default believes every peer in a
 * private or loopback range; Spring Boot installs the same valve when {@code
 * server.tomcat.remoteip.protocol-header} or {@code remote-ip-header} is set, whatever the
 * strategy), and for a {@code slidingwindow.http.trusted-proxies} entry that holds every address
 * ({@code 0.0.0.0/0}, {@code ::/0}). Not for {@code native} on Reactor Netty: the reactive keys
 * start from the connection's own peer ({@code ReactiveClientKeys}), which it does not rewrite. One
 * WARN line each; nothing else changes. Thread-safe.
 */
final class ForwardedHeadersCheck implements SmartInitializingSingleton {

  private static final System.Logger LOG = System.getLogger(ForwardedHeadersCheck.class.getName());

  /** The property that makes Spring Boot believe forwarded headers. */
  static final String STRATEGY = "server.forward-headers-strategy";

  /** The property that names the proxies Tomcat's RemoteIpValve believes. */
  static final String TOMCAT_PROXIES = "server.tomcat.remoteip.internal-proxies";

  /**
   * The properties that make Spring Boot install Tomcat's RemoteIpValve whatever the strategy (for
   * backward compatibility), each of which is enough.
   */
  static final List<String> TOMCAT_VALVE =
      List.of("server.tomcat.remoteip.protocol-header", "server.tomcat.remoteip.remote-ip-header");

  private static final String ADVICE =
      " Any client can then name another client's address in X-Forwarded-For and spend its"
          + " quota. Leave "
          + STRATEGY
          + " unset and list your proxies in slidingwindow.http.trusted-proxies instead (see the"
          + " section Trusted proxies of docs/http.md).";

  private final Environment environment;
  private final SlidingWindowHttpProperties properties;
  private final boolean servlet;

  /**
   * A check of {@code environment}'s server settings and of {@code properties}' trusted proxies,
   * for a servlet application or, if {@code servlet} is false, a reactive one.
   */
  ForwardedHeadersCheck(
      Environment environment, SlidingWindowHttpProperties properties, boolean servlet) {
    this.environment = environment;
    this.properties = properties;
    this.servlet = servlet;
  }

  @Override
  public void afterSingletonsInstantiated() {
    for (String warning : warnings()) {
      LOG.log(Level.WARNING, warning);
    }
  }

  /** The warnings for this application's settings and server; empty if none. */
  List<String> warnings() {
    String strategy = environment.getProperty(STRATEGY);
    if (strategy == null && onCloudPlatform()) {
      strategy = "native";
    }
    List<String> trusted = properties.getTrustedProxies();
    String valve =
        TOMCAT_VALVE.stream()
            .filter(name -> !environment.getProperty(name, "").isBlank())
            .findFirst()
            .orElse(null);
    return warnings(
        strategy,
        server(),
        environment.getProperty(TOMCAT_PROXIES),
        valve,
        trusted == null ? List.of() : trusted);
  }

  /** As {@link #warnings(String, String, String, String, List)}, with no valve property set. */
  static List<String> warnings(
      String strategy, String server, String tomcatProxies, List<?> trustedProxies) {
    return warnings(strategy, server, tomcatProxies, null, trustedProxies);
  }

  /**
   * The warnings for a forward-headers strategy (null if unset), a server ({@code tomcat}, {@code
   * jetty}, {@code undertow} or {@code netty}), Tomcat's internal proxies (null if unset), the
   * first of {@link #TOMCAT_VALVE} that is set (null if none) and the trusted proxies; empty if
   * forwarded headers are believed only from named proxies.
   */
  static List<String> warnings(
      String strategy,
      String server,
      String tomcatProxies,
      String tomcatValve,
      List<?> trustedProxies) {
    String mode = strategy == null ? "none" : strategy.trim().toLowerCase(Locale.ROOT);
    if (!mode.equals("framework")
        && server.equals("tomcat")
        && tomcatValve != null
        && tomcatProxies == null) {
      mode = "valve";
    }
    Optional<String> platform =
        switch (mode) {
          case "framework" ->
              Optional.of(
                  "slidingwindow: forwarded headers are believed from every client ("
                      + STRATEGY
                      + "=framework: Spring's ForwardedHeaderFilter takes Forwarded and"
                      + " X-Forwarded-* from any peer).");
          case "native" ->
              server.equals("netty") || (server.equals("tomcat") && tomcatProxies != null)
                  ? Optional.empty() // Reactor Netty: the keys read the connection's own peer
                  : Optional.of(
                      "slidingwindow: forwarded headers are believed from "
                          + (server.equals("tomcat")
                              ? "any peer in a private or loopback range ("
                                  + STRATEGY
                                  + "=native on Tomcat, without "
                                  + TOMCAT_PROXIES
                                  + ")."
                              : "any peer (" + STRATEGY + "=native on " + server + ")."));
          case "valve" ->
              Optional.of(
                  "slidingwindow: forwarded headers are believed from any peer in a private or"
                      + " loopback range ("
                      + tomcatValve
                      + " is set, so Spring Boot installs Tomcat's RemoteIpValve whatever "
                      + STRATEGY
                      + " says, and it believes X-Forwarded-For without "
                      + TOMCAT_PROXIES
                      + ").");
          default -> Optional.empty();
        };
    List<String> catchAll =
        trustedProxies.stream()
            .map(String::valueOf)
            .filter(ForwardedHeadersCheck::holdsEveryAddress)
            .toList();
    List<String> warnings = new ArrayList<>();
    platform.ifPresent(text -> warnings.add(text + ADVICE));
    if (!catchAll.isEmpty()) {
      warnings.add(
          "slidingwindow: slidingwindow.http.trusted-proxies holds every address "
              + catchAll
              + ", so X-Forwarded-For is believed from any peer. Any client can then name another"
              + " client's address and spend its quota. List only your proxies' addresses.");
    }
    return List.copyOf(warnings);
  }

  /** Whether a trusted-proxies entry holds every IPv4 or every IPv6 address. */
  private static boolean holdsEveryAddress(String cidr) {
    String value = cidr.trim();
    if (!value.endsWith("/0")) {
      return false;
    }
    try {
      ClientAddresses.trusting(List.of(value));
      return true;
    } catch (IllegalArgumentException e) {
      return false; // not a block at all: start-up fails on it elsewhere
    }
  }

  /**
   * The server Spring Boot starts, chosen in its order by what is on the class path: Tomcat, Jetty,
   * Undertow, then (reactive only) Reactor Netty, for a reactive application too (one on Tomcat may
   * have Reactor Netty on its class path for its {@code WebClient}).
   */
  private String server() {
    ClassLoader loader = getClass().getClassLoader();
    if (ClassUtils.isPresent("org.apache.catalina.startup.Tomcat", loader)) {
      return "tomcat";
    }
    if (ClassUtils.isPresent("org.eclipse.jetty.server.Server", loader)) {
      return "jetty";
    }
    return ClassUtils.isPresent("io.undertow.Undertow", loader) ? "undertow" : "netty";
  }

  /**
   * Whether Spring Boot's active {@code CloudPlatform} uses forwarded headers, as Boot itself
   * decides it (on Boot 3.5 {@code spring.main.cloud-platform=none} does, on Boot 4 not); false if
   * it cannot be asked. Read by name, so that no Boot class is named here.
   */
  private boolean onCloudPlatform() {
    try {
      Class<?> platform =
          Class.forName(
              "org.springframework.boot.cloud.CloudPlatform", false, getClass().getClassLoader());
      Object active = platform.getMethod("getActive", Environment.class).invoke(null, environment);
      return active != null
          && Boolean.TRUE.equals(platform.getMethod("isUsingForwardHeaders").invoke(active));
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      return false;
    }
  }
}
