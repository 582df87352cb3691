package io.slidingwindow.spring.boot.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.http.server.PathContainer;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.web.cors.CorsConfiguration;

class BrowserGuardTest {

  private final BrowserGuard guard = new BrowserGuard("/actuator/slidingwindow", cors());

  private static CorsConfiguration cors() {
    CorsConfiguration cors = new CorsConfiguration();
    cors.setAllowedOrigins(List.of("https://admin.example"));
    cors.setAllowedOriginPatterns(List.of("https://*.ops.example"));
    return cors;
  }

  private boolean guards(String method, String path) {
    return guard.guards(method, PathContainer.parsePath(path));
  }

  @Test
  void guards_writesToTheEndpointInAnySpelling_notReadsNorOtherPaths() {
    assertThat(guards("POST", "/actuator/slidingwindow/api/plans/free")).isTrue();
    assertThat(guards("delete", "/actuator/slidingwindow/api/ip:1.2.3.4")).isTrue();
    assertThat(guards("PUT", "/actuator/slidingwindow")).isTrue();
    assertThat(guards("POST", "/actuator/%73lidingwindow/api/plans/free")).isTrue();
    assertThat(guards("POST", "/actuator;a=b/slidingwindow;c=d/api/plans/free")).isTrue();
    assertThat(guards("POST", "//actuator//SlidingWindow/api/plans/free")).isTrue();
    assertThat(guards("POST", "/mvc-servlet-path/actuator/slidingwindow/api/plans/free")).isTrue();

    assertThat(guards("GET", "/actuator/slidingwindow/api/plans/free")).isFalse();
    assertThat(guards("HEAD", "/actuator/slidingwindow")).isFalse();
    assertThat(guards("OPTIONS", "/actuator/slidingwindow/api/plans/free")).isFalse();
    assertThat(guards("POST", "/actuator/loggers/root")).isFalse();
    assertThat(guards("POST", "/actuator")).isFalse();
    assertThat(guards("POST", "/api/slidingwindow")).isFalse();
  }

  @Test
  void of_followsTheBasePathAndThePathMapping() {
    MockEnvironment environment =
        new MockEnvironment()
            .withProperty("management.endpoints.web.base-path", "/manage/")
            .withProperty("management.endpoints.web.path-mapping.slidingwindow", "limits")
            .withProperty(
                "management.endpoints.web.cors.allowed-origins",
                "https://a.example,https://b.example")
            .withProperty(
                "management.endpoints.web.cors.allowed-origin-patterns[0]", "https://*.c.example");
    BrowserGuard configured = BrowserGuard.of(environment);
    assertThat(configured.guards("POST", PathContainer.parsePath("/manage/limits/api/plans/x")))
        .isTrue();
    assertThat(configured.guards("POST", PathContainer.parsePath("/actuator/slidingwindow/a/b")))
        .isFalse();
    assertThat(configured.refusal("https://b.example", "cross-site", "rebound.test")).isNull();
    assertThat(configured.refusal("https://x.c.example", "cross-site", "rebound.test")).isNull();
    assertThat(configured.refusal("https://d.example", "cross-site", "127.0.0.1")).isNotNull();
  }

  @ParameterizedTest(name = "Origin {0}, Sec-Fetch-Site {1}, Host {2}: served {3}")
  @CsvSource(
      nullValues = "-",
      value = {
        // Not a browser: curl, scripts, HTTP clients.
        "-, -, rebound.test:8081, true",
        "-, -, -, true",
        // The server's own origin at an address no one can rebind.
        "http://127.0.0.1:8081, same-origin, 127.0.0.1:8081, true",
        "http://localhost:8081, same-origin, localhost:8081, true",
        "http://LOCALHOST, -, localhost, true",
        "http://[::1]:8081, same-origin, [::1]:8081, true",
        "https://10.0.0.7, same-origin, 10.0.0.7, true",
        "-, same-origin, 192.168.1.2:8081, true",
        // Origins the actuator's CORS configuration allows.
        "https://admin.example, cross-site, 127.0.0.1:8081, true",
        "https://admin.example, same-origin, admin.example, true",
        "https://a.ops.example, same-site, b.ops.example, true",
        // A rebound page: its own origin, at a host name.
        "http://rebound.test:8081, same-origin, rebound.test:8081, false",
        "http://localhost.rebound.test:8081, same-origin, localhost.rebound.test:8081, false",
        "http://127.0.0.1.rebound.test, same-origin, 127.0.0.1.rebound.test, false",
        "-, same-origin, rebound.test:8081, false",
        // Another origin.
        "http://evil.test, cross-site, 127.0.0.1:8081, false",
        "http://127.0.0.1:3000, same-site, 127.0.0.1:8081, false",
        "http://127.0.0.1:3000, -, 127.0.0.1:8081, false",
        "null, -, 127.0.0.1:8081, false",
        "http://127.0.0.1:8081, -, -, false",
        "-, none, 127.0.0.1:8081, false",
        "-, cross-site, -, false",
        // Not an address.
        "http://[::1, -, [::1, false",
        "http://256.0.0.1, -, 256.0.0.1, false",
      })
  void refusal(String origin, String fetchSite, String host, boolean served) {
    String refusal = guard.refusal(origin, fetchSite, host);
    if (served) {
      assertThat(refusal).isNull();
    } else {
      assertThat(refusal).isNotNull().contains("may not change this");
    }
  }

  @Test
  void refuse_answersTheReasonAsJsonWithItsMarkupEscaped() {
    assertThat(new String(BrowserGuard.refuse("POST", "Origin: <x>\"")))
        .isEqualTo("{\"error\":\"Origin: \\u003cx\\u003e\\\"\"}");
  }
}
