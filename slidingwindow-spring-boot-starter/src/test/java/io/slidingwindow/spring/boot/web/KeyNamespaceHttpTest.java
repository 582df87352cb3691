package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.http.RequestKey;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.testkit.FakeTicker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * Keys from different sources never share a bucket, through a real Tomcat: the annotation's and the
 * YAML rules' key expressions, shorthands and a key bean; IPv6 clients behind a trusted proxy keyed
 * by the configured prefix. Each test uses its own rule or endpoint, since the context is shared.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = KeyNamespaceHttpTest.App.class,
    properties = {
      "server.address=127.0.0.1",
      "slidingwindow.http.trusted-proxies=127.0.0.1",
      "slidingwindow.http.rate-limit-headers=true",
      "slidingwindow.http.ipv6-prefix-length=56",
      "slidingwindow.http.rules.by-ip.paths=/v1/by-ip",
      "slidingwindow.http.rules.by-ip.key=ip",
      "slidingwindow.http.rules.by-ip.limits[0].permits=2",
      "slidingwindow.http.rules.by-ip.limits[0].window=1m",
      "slidingwindow.http.rules.tenant.paths=/v1/tenant",
      "slidingwindow.http.rules.tenant.key=header('X-Tenant') ?: clientIp",
      "slidingwindow.http.rules.tenant.limits[0].permits=2",
      "slidingwindow.http.rules.tenant.limits[0].window=1m",
      "slidingwindow.http.rules.checked.paths=/v1/checked",
      "slidingwindow.http.rules.checked.key=bean:checkedKey",
      "slidingwindow.http.rules.checked.limits[0].permits=2",
      "slidingwindow.http.rules.checked.limits[0].window=1m",
      "slidingwindow.http.rules.plain.paths=/v1/plain",
      "slidingwindow.http.rules.plain.key=bean:plainKey",
      "slidingwindow.http.rules.plain.limits[0].permits=2",
      "slidingwindow.http.rules.plain.limits[0].window=1m",
    })
class KeyNamespaceHttpTest {

  @SpringBootApplication
  static class App {
    @Bean
    FakeTicker ticker() {
      return new FakeTicker();
    }

    /** A checked API key, else the client address: the safe way to key on a client's header. */
    @Bean
    KeyResolver checkedKey(ClientIpResolver clientIp) {
      Set<String> known = Set.of("key-1", "key-2");
      return KeyResolver.typed(
          request -> {
            String key = request.getHeader("X-Api-Key");
            return key != null && known.contains(key)
                ? RequestKey.custom(key)
                : clientIp.key(request);
          });
    }

    /** A resolver of plain text that spells the built-in address key itself. */
    @Bean
    KeyResolver plainKey() {
      return request ->
          request.getHeader("X-Api-Key") != null
              ? request.getHeader("X-Api-Key")
              : "ip:" + request.getRemoteAddr();
    }

    @RestController
    static class Api {
      @GetMapping({"/v1/by-ip", "/v1/tenant", "/v1/checked", "/v1/plain"})
      String ok() {
        return "ok";
      }

      @GetMapping("/reports/{id}")
      @RateLimit(limits = "2/1m", key = "header('X-Api-Key') ?: clientIp", name = "reports")
      String report(@PathVariable("id") String id) {
        return "report " + id;
      }

      @GetMapping("/items/{id}")
      @RateLimit(limits = "1/1m", key = "key(pathVariables['id'], clientIp)", name = "items")
      String item(@PathVariable("id") String id) {
        return "item " + id;
      }
    }
  }

  @LocalServerPort int port;
  @Autowired FakeTicker ticker;

  private final HttpClient client =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private int get(String path, String... headers) throws IOException, InterruptedException {
    HttpRequest.Builder request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  /** Spends the quota of 2 with {@code forged}, then checks the anonymous address still has it. */
  private void assertForgedKeyLeavesTheAddressAlone(String path, String header, String... forged)
      throws Exception {
    for (String value : forged) {
      assertThat(get(path, header, value)).as(value).isEqualTo(200);
      assertThat(get(path, header, value)).as(value).isEqualTo(200);
      assertThat(get(path, header, value)).as(value).isEqualTo(429);
    }
    assertThat(get(path)).as("the client at 127.0.0.1").isEqualTo(200);
    assertThat(get(path)).isEqualTo(200);
    assertThat(get(path)).isEqualTo(429);
  }

  @Test
  void annotation_headerValueSpellingTheAddress_cannotDrainTheAddressesQuota() throws Exception {
    assertForgedKeyLeavesTheAddressAlone(
        "/reports/1", "X-Api-Key", "127.0.0.1", "ip:127.0.0.1", "custom:127.0.0.1");
  }

  @Test
  void yamlExpressionKey_headerValueSpellingTheAddress_cannotDrainTheAddressesQuota()
      throws Exception {
    assertForgedKeyLeavesTheAddressAlone("/v1/tenant", "X-Tenant", "127.0.0.1", "ip:127.0.0.1");
  }

  @Test
  void plainTextKeyBean_spellingTheAddressKey_staysInItsOwnNamespace() throws Exception {
    // The bean keys a header on its text and the address on "ip:<address>": both plain text, so
    // both land in the custom namespace, where "ip:127.0.0.1" sent as a header is the same text.
    // What the library guarantees is that neither is the built-in address key of the "by-ip" rule.
    assertThat(get("/v1/plain", "X-Api-Key", "ip:127.0.0.1")).isEqualTo(200);
    assertThat(get("/v1/plain", "X-Api-Key", "ip:127.0.0.1")).isEqualTo(200);
    assertThat(get("/v1/plain")).as("the bean's own collision").isEqualTo(429);
    assertThat(get("/v1/by-ip")).isEqualTo(200);
    assertThat(get("/v1/by-ip")).isEqualTo(200);
    assertThat(get("/v1/by-ip")).isEqualTo(429);
  }

  @Test
  void checkedKeyBean_unknownKeysShareTheAddressesQuotaAndKnownKeysHaveTheirOwn() throws Exception {
    // Rotating unknown keys buys nothing: each is keyed by the client address.
    assertThat(get("/v1/checked", "X-Api-Key", "guess-1")).isEqualTo(200);
    assertThat(get("/v1/checked", "X-Api-Key", "guess-2")).isEqualTo(200);
    assertThat(get("/v1/checked", "X-Api-Key", "guess-3")).isEqualTo(429);
    assertThat(get("/v1/checked", "X-Api-Key", "127.0.0.1")).isEqualTo(429);
    assertThat(get("/v1/checked")).isEqualTo(429);
    // A known key has a quota of its own.
    assertThat(get("/v1/checked", "X-Api-Key", "key-1")).isEqualTo(200);
    assertThat(get("/v1/checked", "X-Api-Key", "key-1")).isEqualTo(200);
    assertThat(get("/v1/checked", "X-Api-Key", "key-1")).isEqualTo(429);
    assertThat(get("/v1/checked", "X-Api-Key", "key-2")).isEqualTo(200);
  }

  @Test
  void ipRule_ipv6ClientsBehindTheTrustedProxy_areKeyedByTheConfiguredPrefix() throws Exception {
    // The test client connects from 127.0.0.1, the trusted proxy; the hop it appended is the
    // client.
    assertThat(get("/v1/by-ip", "X-Forwarded-For", "2001:db8:0:1100::1")).isEqualTo(200);
    assertThat(get("/v1/by-ip", "X-Forwarded-For", "6.6.6.6, 2001:db8:0:11ff:aa::9"))
        .isEqualTo(200);
    assertThat(get("/v1/by-ip", "X-Forwarded-For", "[2001:db8:0:1122::7]:443"))
        .as("same /56")
        .isEqualTo(429);
    assertThat(get("/v1/by-ip", "X-Forwarded-For", "2001:db8:0:1200::1"))
        .as("the next /56")
        .isEqualTo(200);
    assertThat(get("/v1/by-ip", "X-Forwarded-For", "::ffff:203.0.113.5")).isEqualTo(200);
    assertThat(get("/v1/by-ip", "X-Forwarded-For", "203.0.113.5")).isEqualTo(200);
    assertThat(get("/v1/by-ip", "X-Forwarded-For", "::ffff:cb00:7105"))
        .as("mapped = IPv4")
        .isEqualTo(429);
  }

  @Test
  void refusal_revealsNeitherTheKeyNorItsSource() throws Exception {
    HttpResponse<String> last = null;
    for (int i = 0; i < 3; i++) {
      last =
          client.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/reports/9"))
                  .header("X-Api-Key", "secret-key-123")
                  .header("X-Forwarded-For", "198.51.100.77")
                  .build(),
              HttpResponse.BodyHandlers.ofString());
    }
    assertThat(last.statusCode()).isEqualTo(429);
    assertThat(last.headers().firstValue("RateLimit-Policy")).hasValue("\"reports\";q=2;w=60");
    StringBuilder seen = new StringBuilder(last.body());
    last.headers().map().forEach((name, values) -> seen.append(name).append(values));
    assertThat(seen.toString())
        .doesNotContain(
            "secret-key-123", "198.51.100.77", "127.0.0.1", "header:", "ip:", "x-api-key");
  }

  @Test
  void annotation_tupleKey_limitsEachPathVariablePerClient() throws Exception {
    assertThat(get("/items/1")).isEqualTo(200);
    assertThat(get("/items/1")).isEqualTo(429);
    assertThat(get("/items/2")).isEqualTo(200);
    assertThat(get("/items/1", "X-Forwarded-For", "198.51.100.3")).isEqualTo(200);
  }
}
