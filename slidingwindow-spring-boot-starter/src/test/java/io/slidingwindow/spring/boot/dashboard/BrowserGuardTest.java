package io.slidingwindow.spring.boot.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.LogCapture;
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

  /**
   * A page left open at a refused host name polls every second: the first refusal of its kind is
   * logged at INFO, the same one again at DEBUG. The memory of refusals is bounded, and forgotten
   * when full rather than sending every later refusal to DEBUG: a host name is the sender's to
   * choose, and made-up ones must not hide a later refusal.
   */
  @Test
  void refuse_logsEachRefusalOnceAtInfo_andMadeUpHostNamesCannotHideALaterOne() {
    try (LogCapture audit =
        LogCapture.of("io.slidingwindow.spring.boot.dashboard.SlidingWindowQuotas")) {
      BrowserGuard fresh = new BrowserGuard("/actuator/slidingwindow", cors());
      for (int poll = 0; poll < 5; poll++) {
        fresh.refuse("GET", "a request at a host name (Host: rebound.test) may not read this");
      }
      assertThat(levels(audit))
          .as("five polls of one page")
          .containsExactly(
              java.util.logging.Level.INFO,
              java.util.logging.Level.FINE,
              java.util.logging.Level.FINE,
              java.util.logging.Level.FINE,
              java.util.logging.Level.FINE);

      for (int name = 1; name < BrowserGuard.REFUSALS_REMEMBERED; name++) {
        fresh.refuse("GET", "a request at a host name (Host: n" + name + ".test) may not read");
      }
      audit.clear();
      fresh.refuse("GET", "a request at a host name (Host: rebound.test) may not read this");
      fresh.refuse("GET", "a request at a host name (Host: rebound.test) may not read this");
      assertThat(levels(audit))
          .as(
              "the first page's refusal again, after %s made-up host names filled the memory",
              BrowserGuard.REFUSALS_REMEMBERED - 1)
          .containsExactly(java.util.logging.Level.INFO, java.util.logging.Level.FINE);
    }
  }

  private static List<java.util.logging.Level> levels(LogCapture log) {
    return log.records().stream().map(java.util.logging.LogRecord::getLevel).toList();
  }

  @Test
  void guards_writesToTheEndpointInAnySpelling_notOtherPaths() {
    assertThat(guards("POST", "/actuator/slidingwindow/api/plans/free")).isTrue();
    assertThat(guards("delete", "/actuator/slidingwindow/api/ip:1.2.3.4")).isTrue();
    assertThat(guards("PUT", "/actuator/slidingwindow")).isTrue();
    assertThat(guards("POST", "/actuator/%73lidingwindow/api/plans/free")).isTrue();
    assertThat(guards("POST", "/actuator;a=b/slidingwindow;c=d/api/plans/free")).isTrue();
    assertThat(guards("POST", "//actuator//SlidingWindow/api/plans/free")).isTrue();
    assertThat(guards("POST", "/mvc-servlet-path/actuator/slidingwindow/api/plans/free")).isTrue();
    assertThat(guards("DELETE", "/actuator/slidingwindow/dashboard/dashboard.js"))
        .as("a reset of rule dashboard's key, not the page's file")
        .isTrue();

    assertThat(guards("OPTIONS", "/actuator/slidingwindow/api/plans/free")).isFalse();
    assertThat(guards("TRACE", "/actuator/slidingwindow")).isFalse();
    assertThat(guards("POST", "/actuator/loggers/root")).isFalse();
    assertThat(guards("POST", "/actuator")).isFalse();
    assertThat(guards("POST", "/api/slidingwindow")).isFalse();
  }

  @Test
  void guards_readsOfTheFeedQuotasAndPlansInAnySpelling_notThePagesFiles() {
    assertThat(guards("GET", "/actuator/slidingwindow")).isTrue();
    assertThat(guards("HEAD", "/actuator/slidingwindow")).isTrue();
    assertThat(guards("get", "/actuator/slidingwindow/api/ip:1.2.3.4")).isTrue();
    assertThat(guards("GET", "/actuator/slidingwindow/api")).isTrue();
    assertThat(guards("GET", "/actuator/slidingwindow/api/plans/free")).isTrue();
    assertThat(guards("GET", "/actuator/%73lidingwindow/")).isTrue();
    assertThat(guards("GET", "/actuator;a=b/slidingwindow;c=d/api/ip:1.2.3.4")).isTrue();
    assertThat(guards("GET", "//actuator//SlidingWindow")).isTrue();
    assertThat(guards("GET", "/mvc-servlet-path/actuator/slidingwindow")).isTrue();
    assertThat(guards("GET", "/actuator/slidingwindow/INDEX.HTML"))
        .as("the plans of rule INDEX.HTML, not the page")
        .isTrue();
    assertThat(guards("GET", "/actuator/slidingwindow/Dashboard/dashboard.js"))
        .as("a quota of rule Dashboard")
        .isTrue();
    assertThat(guards("GET", "/actuator/slidingwindow/dashboard%2Fdashboard.js")).isTrue();
    assertThat(guards("GET", "/actuator/slidingwindow/index.html/plans/free")).isTrue();
    assertThat(guards("GET", "/actuator/slidingwindow/actuator/slidingwindow/index.html"))
        .as("a plan of rule actuator, whatever follows")
        .isTrue();

    assertThat(guards("GET", "/actuator/slidingwindow/index.html")).isFalse();
    assertThat(guards("HEAD", "/actuator/slidingwindow/index.html;a=b")).isFalse();
    assertThat(guards("GET", "/actuator/SlidingWindow/dashboard/uPlot.min.css")).isFalse();
    assertThat(guards("GET", "/actuator/slidingwindow/dashboard/no-such-file")).isFalse();
    assertThat(guards("GET", "/actuator/%73lidingwindow/%64ashboard/dashboard.js")).isFalse();
    assertThat(guards("GET", "/actuator")).isFalse();
    assertThat(guards("GET", "/actuator/health")).isFalse();
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
    assertThat(configured.guards("GET", PathContainer.parsePath("/manage/limits"))).isTrue();
    assertThat(configured.guards("GET", PathContainer.parsePath("/manage/limits/index.html")))
        .isFalse();
    assertThat(
            configured.refusal("POST", "http", "https://b.example", "cross-site", "rebound.test"))
        .isNull();
    assertThat(
            configured.refusal("POST", "http", "https://x.c.example", "cross-site", "rebound.test"))
        .isNull();
    assertThat(configured.refusal("POST", "http", "https://d.example", "cross-site", "127.0.0.1"))
        .isNotNull();
    assertThat(configured.refusal("GET", "https", null, "same-origin", "x.c.example")).isNull();
  }

  @ParameterizedTest(name = "{0} over {1}, Origin {2}, Sec-Fetch-Site {3}, Host {4}: served {5}")
  @CsvSource(
      nullValues = "-",
      value = {
        // Not a browser: curl, scripts, HTTP clients.
        "POST, http, -, -, rebound.test:8081, true",
        "POST, http, -, -, -, true",
        // Not a browser: without Host (HTTP/1.0), which a browser always sends.
        "GET, http, -, -, -, true",
        "HEAD, https, -, -, -, true",
        // Not a browser, reading at an address no one can rebind, or at an allowed origin.
        "GET, http, -, -, 127.0.0.1:8081, true",
        "HEAD, http, -, -, localhost, true",
        "GET, https, -, -, admin.example, true",
        // The server's own origin at an address no one can rebind.
        "POST, http, http://127.0.0.1:8081, same-origin, 127.0.0.1:8081, true",
        "POST, http, http://localhost:8081, same-origin, localhost:8081, true",
        "POST, http, http://LOCALHOST, -, localhost, true",
        "POST, http, http://[::1]:8081, same-origin, [::1]:8081, true",
        "POST, https, https://10.0.0.7, same-origin, 10.0.0.7, true",
        "POST, http, -, same-origin, 192.168.1.2:8081, true",
        "GET, http, -, same-origin, 127.0.0.1:8081, true",
        "GET, http, -, same-origin, localhost:8081, true",
        "HEAD, http, -, same-origin, [::1]:8081, true",
        "GET, http, http://127.0.0.1:8081, same-origin, 127.0.0.1:8081, true",
        // A read the user asked for (an address typed), at such an address.
        "GET, http, -, none, 127.0.0.1:8081, true",
        // Origins the actuator's CORS configuration allows, named or of the request's own Host.
        "POST, http, https://admin.example, cross-site, 127.0.0.1:8081, true",
        "POST, https, https://admin.example, same-origin, admin.example, true",
        "POST, http, https://a.ops.example, same-site, b.ops.example, true",
        "GET, http, https://admin.example, cross-site, 127.0.0.1:8081, true",
        "GET, https, -, same-origin, admin.example, true",
        "GET, https, -, none, a.ops.example, true",
        // A rebound page: its own origin, at a host name.
        "POST, http, http://rebound.test:8081, same-origin, rebound.test:8081, false",
        "POST, http, http://localhost.rebound.test:8081, same-origin, localhost.rebound.test:8081,"
            + " false",
        "POST, http, http://127.0.0.1.rebound.test, same-origin, 127.0.0.1.rebound.test, false",
        "POST, http, -, same-origin, rebound.test:8081, false",
        "GET, http, -, same-origin, rebound.test:8081, false",
        "GET, http, -, none, rebound.test:8081, false",
        "HEAD, http, http://rebound.test:8081, same-origin, rebound.test:8081, false",
        "GET, http, -, same-origin, admin.example, false",
        // A read at a host name, which a rebound page over HTTP sends without those headers.
        "GET, http, -, -, rebound.test:8081, false",
        "GET, https, -, -, rebound.test, false",
        "GET, https, -, same-origin, admin.example:8443, false",
        // Another origin.
        "POST, http, http://evil.test, cross-site, 127.0.0.1:8081, false",
        "POST, http, http://127.0.0.1:3000, same-site, 127.0.0.1:8081, false",
        "POST, http, http://127.0.0.1:3000, -, 127.0.0.1:8081, false",
        "POST, http, null, -, 127.0.0.1:8081, false",
        "POST, http, http://127.0.0.1:8081, -, -, false",
        "POST, http, -, none, 127.0.0.1:8081, false",
        "POST, http, -, cross-site, -, false",
        "GET, http, -, cross-site, -, false",
        "GET, http, http://evil.test, -, -, false",
        "GET, http, -, cross-site, 127.0.0.1:8081, false",
        "GET, http, -, same-site, 127.0.0.1:8081, false",
        "GET, http, http://evil.test, cross-site, 127.0.0.1:8081, false",
        "GET, http, http://127.0.0.1:3000, same-origin, 127.0.0.1:8081, false",
        // Not an address.
        "POST, http, http://[::1, -, [::1, false",
        // Brackets around what is no IPv6 address: a host name a page's owner can rebind.
        "POST, http, http://[evil], same-origin, [evil], false",
        "GET, http, -, -, [evil]:8081, false",
        "GET, http, -, -, [rebound.test], false",
        "GET, http, -, -, [1.2.3.4], false",
        "GET, http, -, -, [::1]x, false",
        "GET, http, -, -, [::1]:, false",
        "GET, http, -, -, [1:2:3:4:5:6:7:8:9], false",
        "GET, http, -, -, [1::2::3], false",
        "GET, http, -, -, [12345::1], false",
        // IPv6 addresses in their other forms.
        "GET, http, -, -, [2001:db8::7]:8081, true",
        "GET, http, -, -, [1:2:3:4:5:6:7:8], true",
        "GET, http, -, -, [::ffff:127.0.0.1], true",
        "GET, http, -, -, [::], true",
        "POST, http, http://256.0.0.1, -, 256.0.0.1, false",
        "GET, http, -, same-origin, 256.0.0.1, false",
      })
  void refusal(
      String method, String scheme, String origin, String fetchSite, String host, boolean served) {
    String refusal = guard.refusal(method, scheme, origin, fetchSite, host);
    if (served) {
      assertThat(refusal).isNull();
    } else {
      assertThat(refusal)
          .isNotNull()
          .contains(method.equals("POST") ? "may not change this" : "may not read this");
    }
  }

  @Test
  void refusal_atAHostName_saysToOpenThePageAtAnAddressOrToAllowItsOrigin() {
    assertThat(guard.refusal("GET", "http", null, "same-origin", "ops-box:8081"))
        .isEqualTo(
            "a request at a host name (Host: ops-box:8081) may not read this, as a web page whose"
                + " name was pointed at this server could send it: open the page, or call, at"
                + " localhost or an IP address, or name its origin, http://ops-box:8081, in"
                + " management.endpoints.web.cors.allowed-origins (the origin is read from the"
                + " request's scheme and Host: behind a proxy that ends TLS, set"
                + " server.forward-headers-strategy so that the server reads X-Forwarded-Proto and"
                + " an https origin can match)");
    assertThat(guard.refusal("POST", "http", "http://ops-box", "same-origin", "ops-box"))
        .endsWith(
            "open the page at localhost or an IP address, or name its origin, http://ops-box, in"
                + " management.endpoints.web.cors.allowed-origins; or call from a server (the"
                + " origin is read from the request's scheme and Host: behind a proxy that ends"
                + " TLS, set server.forward-headers-strategy so that the server reads"
                + " X-Forwarded-Proto and an https origin can match)");
    assertThat(guard.refusal("GET", "https", null, null, "ops-box"))
        .as("over https, the scheme is not the trouble")
        .endsWith(
            "name its origin, https://ops-box, in management.endpoints.web.cors.allowed-origins");
  }

  @Test
  void refuse_answersTheReasonAsJsonWithItsMarkupEscaped() {
    assertThat(new String(guard.refuse("POST", "Origin: <x>\"")))
        .isEqualTo("{\"error\":\"Origin: \\u003cx\\u003e\\\"\"}");
  }

  @Test
  void forwardedHosts_everyXForwardedHostAndForwardedHost_inOrder() {
    assertThat(
            BrowserGuard.forwardedHosts(
                List.of("a.test, b.test:8080", " "),
                List.of(
                    "for=192.0.2.1;HOST=\"c.test\";proto=https, for=x;host=[::1]:9",
                    "for=y;proto=http")))
        .containsExactly("a.test", "b.test:8080", "c.test", "[::1]:9");
    assertThat(BrowserGuard.forwardedHosts(List.of(), List.of())).isEmpty();
  }

  @Test
  void refusal_forwardedHosts_onlyEverRefuseMore() {
    assertThat(guard.refusal("GET", "http", null, null, "127.0.0.1:8081", List.of("rebound.test")))
        .contains("(forwarded host: rebound.test)");
    assertThat(guard.refusal("GET", "http", null, null, "rebound.test", List.of("127.0.0.1")))
        .contains("(Host: rebound.test)");
    assertThat(guard.refusal("GET", "http", null, null, "127.0.0.1", List.of("localhost", "[::1]")))
        .isNull();
    assertThat(guard.refusal("GET", "https", null, null, "10.0.0.5", List.of("admin.example")))
        .as("an origin the CORS configuration allows")
        .isNull();
    assertThat(guard.refusal("POST", "http", null, null, "10.0.0.5", List.of("rebound.test")))
        .as("a write without the browser's headers, from a script")
        .isNull();
  }
}
