package io.slidingwindow.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RefusalRepliesTest {

  @Test
  void tooManyRequests_carriesStatusRetryAfterHeadersAndProblemBody() {
    Map<String, String> quota = new LinkedHashMap<>();
    quota.put(QuotaHeaders.RATE_LIMIT_POLICY, "\"r\";q=1;w=1");
    quota.put(QuotaHeaders.RATE_LIMIT, "\"r\";r=0;t=3");

    HttpReply reply = RefusalReplies.tooManyRequests(3, quota);

    assertThat(reply.status()).isEqualTo(429);
    assertThat(reply.contentType()).isEqualTo("application/problem+json");
    assertThat(reply.headers())
        .containsEntry("Retry-After", "3")
        .containsEntry("RateLimit", "\"r\";r=0;t=3")
        .containsEntry("RateLimit-Policy", "\"r\";q=1;w=1");
    assertThat(reply.body())
        .isEqualTo(
            "{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
                + "\"detail\":\"Request rate limit exceeded; retry after 3 seconds.\"}");
  }

  @Test
  void tooManyRequests_oneSecond_saysSecondInTheSingular() {
    assertThat(RefusalReplies.tooManyRequests(1, Map.of()).body())
        .endsWith("retry after 1 second.\"}");
  }

  @Test
  void badRequestPath_isA400ProblemThatQuotesNoPath() {
    HttpReply reply = RefusalReplies.badRequestPath();

    assertThat(reply.status()).isEqualTo(400);
    assertThat(reply.headers()).isEmpty();
    assertThat(reply.contentType()).isEqualTo("application/problem+json");
    assertThat(new String(reply.bodyBytes(), StandardCharsets.UTF_8))
        .isEqualTo(
            "{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,"
                + "\"detail\":\"The request path is not in canonical form.\"}");
  }

  @Test
  void httpReply_headers_areACopyThatCannotChange() {
    Map<String, String> headers = new LinkedHashMap<>(Map.of("A", "1"));
    HttpReply reply = new HttpReply(200, headers, "text/plain", "");
    headers.put("B", "2");

    assertThat(reply.headers()).containsOnlyKeys("A");
    assertThatThrownBy(() -> reply.headers().put("C", "3"))
        .isInstanceOf(UnsupportedOperationException.class);
  }
}
