package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.core.env.MapPropertySource;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.mock.env.MockEnvironment;

class ForwardedHeadersCheckTest {

  @Test
  void warnings_forwardedHeadersBelievedFromAnyPeer_warnOncePerCause() {
    assertThat(ForwardedHeadersCheck.warnings("framework", "tomcat", null, List.of()))
        .singleElement()
        .asString()
        .contains("server.forward-headers-strategy=framework")
        .contains("slidingwindow.http.trusted-proxies");
    assertThat(ForwardedHeadersCheck.warnings("NATIVE", "jetty", null, List.of()))
        .singleElement()
        .asString()
        .contains("any peer (server.forward-headers-strategy=native on jetty)");
    assertThat(ForwardedHeadersCheck.warnings("native", "undertow", null, List.of())).hasSize(1);
    assertThat(ForwardedHeadersCheck.warnings("native", "tomcat", null, List.of()))
        .singleElement()
        .asString()
        .contains("private or loopback range")
        .contains("server.tomcat.remoteip.internal-proxies");
    assertThat(ForwardedHeadersCheck.warnings(null, "tomcat", null, List.of("0.0.0.0/0", "::/0")))
        .singleElement()
        .asString()
        .contains("[0.0.0.0/0, ::/0]");
    assertThat(ForwardedHeadersCheck.warnings("framework", "netty", null, List.of("::/0")))
        .hasSize(2);
  }

  @Test
  void warnings_forwardedHeadersFromNamedProxiesOnly_none() {
    assertThat(ForwardedHeadersCheck.warnings(null, "netty", null, List.of("10.0.0.0/8")))
        .isEmpty();
    assertThat(ForwardedHeadersCheck.warnings("none", "netty", null, List.of())).isEmpty();
    // Reactor Netty reports a forwarded address as the remote one, but the keys read the
    // connection's own peer (GatewayForwardedHeadersIT shows it), so nothing to warn about.
    assertThat(ForwardedHeadersCheck.warnings("native", "netty", null, List.of())).isEmpty();
    assertThat(
            ForwardedHeadersCheck.warnings(
                "native", "tomcat", "10\\.0\\.0\\.7", List.of("10.0.0.0/8", "fd00::/8")))
        .isEmpty();
  }

  @Test
  void warnings_tomcatValveInstalledByARemoteIpProperty_warnsUnlessItsProxiesAreNamed() {
    String header = "server.tomcat.remoteip.protocol-header";
    assertThat(ForwardedHeadersCheck.warnings(null, "tomcat", null, header, List.of()))
        .singleElement()
        .asString()
        .contains(header + " is set")
        .contains("server.tomcat.remoteip.internal-proxies");
    assertThat(ForwardedHeadersCheck.warnings("none", "tomcat", null, header, List.of()))
        .as("the valve is installed whatever the strategy")
        .hasSize(1);
    assertThat(ForwardedHeadersCheck.warnings(null, "tomcat", "10\\.0\\.0\\.7", header, List.of()))
        .isEmpty();
    assertThat(ForwardedHeadersCheck.warnings(null, "jetty", null, header, List.of())).isEmpty();
    MockEnvironment environment = new MockEnvironment();
    environment.setProperty("server.tomcat.remoteip.remote-ip-header", "X-Forwarded-For");
    assertThat(
            new ForwardedHeadersCheck(environment, new SlidingWindowHttpProperties(), true)
                .warnings())
        .singleElement()
        .asString()
        .contains("server.tomcat.remoteip.remote-ip-header is set");
  }

  /**
   * A Kubernetes environment as Spring Boot detects it: the variables of the system environment.
   */
  private static MockEnvironment kubernetes() {
    MockEnvironment environment = new MockEnvironment();
    environment
        .getPropertySources()
        .addLast(
            new MapPropertySource(
                StandardEnvironment.SYSTEM_ENVIRONMENT_PROPERTY_SOURCE_NAME,
                Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1", "KUBERNETES_SERVICE_PORT", "443")));
    return environment;
  }

  @Test
  void warnings_cloudPlatformWithoutAStrategy_isTakenAsNative_asSpringBootTakesIt() {
    SlidingWindowHttpProperties properties = new SlidingWindowHttpProperties();
    MockEnvironment kubernetes = kubernetes();
    assertThat(new ForwardedHeadersCheck(kubernetes, properties, true).warnings())
        .as("Tomcat, native by default on the platform")
        .singleElement()
        .asString()
        .contains("native on Tomcat");
    assertThat(new ForwardedHeadersCheck(kubernetes, properties, false).warnings())
        .as("a reactive application with Tomcat on its class path runs on Tomcat, as Boot picks")
        .singleElement()
        .asString()
        .contains("native on Tomcat");
    kubernetes.setProperty("server.forward-headers-strategy", "none");
    assertThat(new ForwardedHeadersCheck(kubernetes, properties, true).warnings()).isEmpty();
    MockEnvironment plain = new MockEnvironment();
    assertThat(new ForwardedHeadersCheck(plain, properties, true).warnings()).isEmpty();
    // Spring Boot 3.5 takes "none" as a platform that uses forwarded headers (Boot 4 does not):
    // the check says what the running Boot does.
    plain.setProperty("spring.main.cloud-platform", "none");
    assertThat(new ForwardedHeadersCheck(plain, properties, true).warnings())
        .singleElement()
        .asString()
        .contains("native on Tomcat");
  }
}
