package io.slidingwindow.spring.boot.web;

import io.slidingwindow.http.RefusalReplies;
import io.slidingwindow.spring.boot.internal.PropertyChecks;

/**
 * The answer to a refused request ({@link RefusalReplies.Refusal}): 429 with an RFC 9457 problem
 * document by default. {@code Retry-After} and the draft-10 headers are sent whatever is set.
 *
 * <pre>{@code
 * slidingwindow.http.refusal:
 *   status: 503
 *   content-type: application/json
 *   body: '{"error":"slow down"}'
 * }</pre>
 */
public class RefusalProperties {

  /** The status of a refusal, 400 to 599. */
  private int status = 429;

  /** The body's media type, without parameters; the body is sent as UTF-8. */
  private String contentType = RefusalReplies.PROBLEM_JSON;

  /** The body as sent; unset, a problem document with the status and the wait. */
  private String body;

  public int getStatus() {
    return status;
  }

  public void setStatus(int status) {
    this.status = status;
  }

  public String getContentType() {
    return contentType;
  }

  public void setContentType(String contentType) {
    this.contentType = contentType;
  }

  public String getBody() {
    return body;
  }

  public void setBody(String body) {
    this.body = body;
  }

  /**
   * The refusal these settings describe.
   *
   * @throws IllegalArgumentException naming the property if the status or the type is invalid
   */
  RefusalReplies.Refusal toRefusal() {
    String prefix = SlidingWindowHttpProperties.PREFIX + ".refusal";
    return PropertyChecks.bind(
        status < 400 || status > 599 ? prefix + ".status" : prefix + ".content-type",
        () -> new RefusalReplies.Refusal(status, contentType, body));
  }
}
