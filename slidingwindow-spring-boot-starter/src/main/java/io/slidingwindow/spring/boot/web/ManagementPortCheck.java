package io.slidingwindow.spring.boot.web;

import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.core.env.Environment;

/**
 * Warns at start-up when a rule over paths names the actuator's paths while the actuator is served
 * on a management port of its own ({@code management.server.port}): that server is a child
 * context's, the rate limit filter is not installed there, and the rule counts nothing on it. The
 * rules stay as they are (applying them there would count liveness probes under rules over every
 * path); the warning says where the rule does not reach. Only patterns that name the actuator's
 * base path ({@code management.endpoints.web.base-path}, {@code /actuator} by default) are
 * reported, not patterns over every path. One WARN line per rule. Thread-safe.
 */
final class ManagementPortCheck implements SmartInitializingSingleton {

  private static final System.Logger LOG = System.getLogger(ManagementPortCheck.class.getName());

  private final Environment environment;
  private final SlidingWindowHttpProperties properties;

  ManagementPortCheck(Environment environment, SlidingWindowHttpProperties properties) {
    this.environment = environment;
    this.properties = properties;
  }

  @Override
  public void afterSingletonsInstantiated() {
    for (String warning : warnings()) {
      LOG.log(Level.WARNING, warning);
    }
  }

  /** The warnings for this application's settings and rules; empty if none. */
  List<String> warnings() {
    String managementPort = environment.getProperty("management.server.port");
    if (managementPort == null) {
      return List.of();
    }
    String port = managementPort.trim();
    String serverPort = environment.getProperty("server.port", "8080").trim();
    if (port.equals("-1") || (port.equals(serverPort) && !port.equals("0"))) {
      return List.of(); // no management server over HTTP, or the application's own
    }
    String base = environment.getProperty("management.endpoints.web.base-path", "/actuator").trim();
    while (base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    if (base.isEmpty()) {
      return List.of(); // the actuator at the root of its port: no path names it alone
    }
    List<String> warnings = new ArrayList<>();
    for (Map.Entry<String, SlidingWindowHttpProperties.Rule> rule :
        properties.getRules().entrySet()) {
      List<String> named = new ArrayList<>();
      List<String> paths = rule.getValue() == null ? null : rule.getValue().getPaths();
      for (String path : paths == null ? List.<String>of() : paths) {
        String pattern = path == null ? "" : path.trim();
        if (pattern.startsWith(base)
            && (pattern.length() == base.length()
                || pattern.charAt(base.length()) == '/'
                || pattern.charAt(base.length()) == '*')) {
          named.add(pattern);
        }
      }
      if (!named.isEmpty()) {
        warnings.add(
            "slidingwindow: rule '"
                + rule.getKey()
                + "' names the actuator's paths "
                + named
                + ", but management.server.port="
                + port
                + " serves the actuator on a server of its own, where rules over paths are not"
                + " applied: the rule counts nothing there. Protect the management port by where"
                + " it listens and by its security, or serve the actuator on the application's"
                + " port (see docs/http.md, A management port of its own).");
      }
    }
    return List.copyOf(warnings);
  }
}
