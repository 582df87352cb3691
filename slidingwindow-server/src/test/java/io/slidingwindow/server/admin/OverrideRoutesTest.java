package io.slidingwindow.server.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import io.slidingwindow.server.decide.DescriptorKey;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class OverrideRoutesTest {

  private final ObjectMapper json = new ObjectMapper();

  @Test
  void loopbackHost_namesOfLoopbackOnly() {
    for (String host : List.of("127.0.0.1", "127.0.0.1:6070", "localhost:6070", "[::1]:6070")) {
      assertThat(OverrideRoutes.loopbackHost(host)).as(host).isTrue();
    }
    for (String host :
        List.of(
            "", "evil.example", "127.0.0.1.evil.example", "localhost.evil", "[::1x]", "10.0.0.1")) {
      assertThat(OverrideRoutes.loopbackHost(host)).as(host).isFalse();
    }
    assertThat(OverrideRoutes.loopbackHost(null)).isFalse();
  }

  @Test
  void digest_isTheStartersDigest_andHidesTheValue() {
    assertThat(OverrideRoutes.digest("demo-key-2")).isEqualTo("sha256:-ybeW9jSR5-N_ywo");
    DescriptorKey key =
        new DescriptorKey(
            "api",
            List.of(
                new DescriptorKey.Entry("tenant", "acme"),
                new DescriptorKey.Entry("api_key", "demo-key-2")));
    assertThat(OverrideRoutes.digests(key))
        .isEqualTo(
            "[tenant=" + OverrideRoutes.digest("acme") + ", api_key=sha256:-ybeW9jSR5-N_ywo]")
        .doesNotContain("demo-key-2");
  }

  @Test
  void descriptor_badBodies_nameTheField() throws Exception {
    Set<String> fields = Set.of("domain", "entries");
    assertThat(
            OverrideRoutes.descriptor(
                json.readTree("{\"domain\":\"api\",\"entries\":[{\"key\":\"k\",\"value\":\"\"}]}"),
                fields))
        .isEqualTo(new DescriptorKey("api", List.of(new DescriptorKey.Entry("k", ""))));
    assertBad("[]", "the body must be a JSON object");
    assertBad("{\"entries\":[{\"key\":\"k\",\"value\":\"v\"}]}", "domain is missing");
    assertBad(
        "{\"domain\":7,\"entries\":[{\"key\":\"k\",\"value\":\"v\"}]}", "domain must be a string");
    assertBad("{\"domain\":\"api\",\"entries\":[]}", "entries must be a non-empty array");
    assertBad(
        "{\"domain\":\"api\",\"entries\":[{\"key\":\"\",\"value\":\"v\"}]}",
        "entries[0].key must not be empty");
    assertBad("{\"domain\":\"api\",\"entries\":[5]}", "entries[0] must be an object");
    assertBad(
        "{\"domain\":\"api\",\"entries\":[{\"key\":\"k\",\"value\":\"v\"}],\"limits\":[]}",
        "unknown field 'limits'");
    assertThatThrownBy(() -> OverrideRoutes.limits(json.readTree("[\"5/10s\", 7]")))
        .isInstanceOf(BadRequest.class)
        .hasMessage("limits[1] must be a string such as \"20/10s\"");
    assertThatThrownBy(() -> OverrideRoutes.limits(json.readTree("\"5/10s\"")))
        .hasMessageStartingWith("limits must be an array");
  }

  private void assertBad(String body, String message) {
    assertThatThrownBy(
            () -> OverrideRoutes.descriptor(json.readTree(body), Set.of("domain", "entries")))
        .as(body)
        .isInstanceOf(BadRequest.class)
        .hasMessageContaining(message);
  }
}
