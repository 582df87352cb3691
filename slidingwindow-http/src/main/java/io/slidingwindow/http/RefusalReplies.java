package io.slidingwindow.http;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The refusals of HTTP rate limiting as {@link HttpReply} values, the same for every server API:
 * 429 Too Many Requests and 400 Bad Request for a path the firewall refused, each with an {@code
 * application/problem+json} body (RFC 9457) that names no rule, key, limit or path.
 *
 * <p>Public for the project's server adapters; applications have no need of it.
 */
public final class RefusalReplies {

  /** The media type of a refusal body. */
  public static final String PROBLEM_JSON = "application/problem+json";

  private static final HttpReply BAD_REQUEST_PATH =
      new HttpReply(
          400,
          Map.of(),
          PROBLEM_JSON,
          "{\"type\":\"about:blank\",\"title\":\"Bad Request\",\"status\":400,"
              + "\"detail\":\"The request path is not in canonical form.\"}");

  private RefusalReplies() {}

  /**
   * A 429 answer: {@code Retry-After} then {@code rateLimitHeaders} (may be empty), and a problem
   * body that repeats the wait.
   *
   * @param retryAfterSeconds the whole seconds to wait, already rounded up
   * @param rateLimitHeaders the draft-10 headers to send as well, in order
   */
  public static HttpReply tooManyRequests(
      long retryAfterSeconds, Map<String, String> rateLimitHeaders) {
    Map<String, String> headers = new LinkedHashMap<>(rateLimitHeaders);
    headers.put(QuotaHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
    return new HttpReply(429, headers, PROBLEM_JSON, tooManyRequestsBody(retryAfterSeconds));
  }

  /** A 400 answer to a request path the firewall refused; the body does not quote the path. */
  public static HttpReply badRequestPath() {
    return BAD_REQUEST_PATH;
  }

  /** The RFC 9457 problem document of a 429. */
  static String tooManyRequestsBody(long retryAfterSeconds) {
    return "{\"type\":\"about:blank\",\"title\":\"Too Many Requests\",\"status\":429,"
        + "\"detail\":\"Request rate limit exceeded; retry after "
        + retryAfterSeconds
        + (retryAfterSeconds == 1 ? " second.\"}" : " seconds.\"}");
  }
}
