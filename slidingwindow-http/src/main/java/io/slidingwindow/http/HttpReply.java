package io.slidingwindow.http;

import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An answer to write, free of any server API: a status, headers in the order to set them, and a
 * UTF-8 body with its media type. An adapter (the servlet enforcer here; a reactive filter or a
 * gateway elsewhere) only copies it onto its own response. Immutable.
 *
 * @param status the HTTP status code
 * @param headers header names and values, in order; unmodifiable
 * @param contentType the body's media type, without charset
 * @param body the body text, sent as UTF-8
 */
public record HttpReply(int status, Map<String, String> headers, String contentType, String body) {

  public HttpReply {
    headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
  }

  /** The body as UTF-8 bytes, a fresh copy. */
  public byte[] bodyBytes() {
    return body.getBytes(StandardCharsets.UTF_8);
  }
}
