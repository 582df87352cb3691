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
   * How a rate-limit refusal is answered: its status, and its body with the body's media type. The
   * headers ({@code Retry-After} and, when turned on, the draft-10 headers) are the same whatever
   * the answer. {@link #DEFAULT} is 429 with the problem document of {@link #tooManyRequests}.
   *
   * @param status the HTTP status, 400 to 599
   * @param contentType the body's media type without parameters, such as {@code application/json};
   *     the body is sent as UTF-8
   * @param body the body text as sent; null for the problem document, whose {@code status} member
   *     is {@code status} and whose {@code detail} gives the wait
   */
  public record Refusal(int status, String contentType, String body) {

    /** 429 Too Many Requests with an {@code application/problem+json} body. */
    public static final Refusal DEFAULT = new Refusal(429, PROBLEM_JSON, null);

    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException if {@code status} is not 400 to 599, or {@code contentType}
     *     is not a {@code type/subtype} media type without parameters
     */
    public Refusal {
      if (status < 400 || status > 599) {
        throw new IllegalArgumentException(
            "status must be a client or server error, 400 to 599, was " + status);
      }
      if (contentType == null || !contentType.matches("[\\w.+-]+/[\\w.+-]+")) {
        throw new IllegalArgumentException(
            "content type must be type/subtype without parameters, was '" + contentType + "'");
      }
    }

    /** This refusal with the wait and the headers of one request. */
    HttpReply reply(long retryAfterSeconds, Map<String, String> rateLimitHeaders) {
      Map<String, String> headers = new LinkedHashMap<>(rateLimitHeaders);
      headers.put(QuotaHeaders.RETRY_AFTER, Long.toString(retryAfterSeconds));
      return new HttpReply(
          status,
          headers,
          contentType,
          body != null ? body : problemBody(status, retryAfterSeconds));
    }
  }

  /**
   * A 429 answer: {@code Retry-After} then {@code rateLimitHeaders} (may be empty), and a problem
   * body that repeats the wait.
   *
   * @param retryAfterSeconds the whole seconds to wait, already rounded up
   * @param rateLimitHeaders the draft-10 headers to send as well, in order
   */
  public static HttpReply tooManyRequests(
      long retryAfterSeconds, Map<String, String> rateLimitHeaders) {
    return Refusal.DEFAULT.reply(retryAfterSeconds, rateLimitHeaders);
  }

  /** A 400 answer to a request path the firewall refused; the body does not quote the path. */
  public static HttpReply badRequestPath() {
    return BAD_REQUEST_PATH;
  }

  /** The RFC 9457 problem document of a 429. */
  static String tooManyRequestsBody(long retryAfterSeconds) {
    return problemBody(429, retryAfterSeconds);
  }

  /**
   * The RFC 9457 problem document of a refusal with {@code status}; its optional {@code title} is
   * the status phrase for 429 and 503 and left out for other statuses.
   */
  static String problemBody(int status, long retryAfterSeconds) {
    String title =
        switch (status) {
          case 429 -> "\"title\":\"Too Many Requests\",";
          case 503 -> "\"title\":\"Service Unavailable\",";
          default -> "";
        };
    return "{\"type\":\"about:blank\","
        + title
        + "\"status\":"
        + status
        + ",\"detail\":\"Request rate limit exceeded; retry after "
        + retryAfterSeconds
        + (retryAfterSeconds == 1 ? " second.\"}" : " seconds.\"}");
  }
}
