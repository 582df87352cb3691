package io.slidingwindow.boot4;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpResponse;

/** The answer every Boot 4 app of this module must give: N times 200, then 429 with the headers. */
final class RateLimitAssertions {

  private RateLimitAssertions() {}

  /**
   * Sends {@code permits + 1} GETs of {@code path}; asserts {@code permits} answers of 200 with
   * draft-10 headers counting down, then a 429 with {@code RateLimit-Policy}, {@code RateLimit}
   * (nothing remaining) and a {@code Retry-After} of 1 to {@code windowSeconds + 1} seconds.
   *
   * @return the refusal
   */
  static HttpResponse<String> grantsThenRefuses(
      URI base, String path, String user, String policy, int permits, long windowSeconds) {
    String expectedPolicy = "\"" + policy + "\";q=" + permits + ";w=" + windowSeconds;
    for (int i = 0; i < permits; i++) {
      HttpResponse<String> granted = Http.get(base, path, user);
      assertThat(granted.statusCode()).as("request %d of %s", i + 1, path).isEqualTo(200);
      assertThat(granted.headers().firstValue("RateLimit-Policy")).hasValue(expectedPolicy);
      String remaining = "\"" + policy + "\";r=" + (permits - 1 - i) + ";t=";
      assertThat(granted.headers().firstValue("RateLimit"))
          .hasValueSatisfying(v -> assertThat(v).startsWith(remaining));
    }
    HttpResponse<String> refused = Http.get(base, path, user);
    assertThat(refused.statusCode()).as("request %d of %s", permits + 1, path).isEqualTo(429);
    assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue(expectedPolicy);
    assertThat(refused.headers().firstValue("RateLimit"))
        .hasValueSatisfying(v -> assertThat(v).startsWith("\"" + policy + "\";r=0;t="));
    assertThat(refused.headers().firstValue("Retry-After"))
        .hasValueSatisfying(v -> assertThat(Long.parseLong(v)).isBetween(1L, windowSeconds + 1));
    return refused;
  }
}
