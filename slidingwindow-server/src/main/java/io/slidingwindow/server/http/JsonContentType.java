package io.slidingwindow.server.http;

import io.netty.handler.codec.http.HttpHeaderNames;

/**
 * The check that a request declares its body as JSON, which every endpoint that reads a body makes
 * before reading it.
 *
 * <p>Why: a web page can make a browser send a {@code text/plain}, form or multipart body to any
 * address the browser reaches (an internal network too) without asking that address first, and a
 * JSON text sent that way would otherwise be read as a request. A body declared {@code
 * application/json} is sent to another origin only after a CORS preflight ({@code OPTIONS}), which
 * no port of the service grants. This does not hold for a page whose host name was rebound to the
 * service's address (DNS rebinding): to the browser it is of the same origin, and it sends JSON
 * without a preflight. Such a request carries {@code Origin} and {@code Sec-Fetch-Site} headers,
 * and {@link BrowserRequests}, checked before this, refuses it.
 *
 * <p>What passes: the media type {@code application/json}, in any case, with optional white space
 * and parameters; a {@code charset} parameter, if any, must be {@code utf-8} (the body is read as
 * strict UTF-8, so another declared charset would be misread). Everything else is refused, {@code
 * application/*+json} and a header with a comma (two values run together, of which a browser may
 * judge by another than the first) included. The check reads the header's text in place and
 * allocates nothing.
 */
public final class JsonContentType {

  /** What a refused request is told. */
  public static final String WANTED =
      "the body must be sent with Content-Type: application/json (charset utf-8 if one is named)";

  private static final String TYPE = "application/json";
  private static final String CHARSET = "charset";
  private static final String UTF8 = "utf-8";

  private JsonContentType() {}

  /** Whether {@code exchange} declares a JSON body. */
  public static boolean accepts(Exchange exchange) {
    return accepts(exchange.header(HttpHeaderNames.CONTENT_TYPE));
  }

  /** Answers {@code exchange} 415 with {@link #WANTED}. */
  public static void refuse(Exchange exchange) {
    exchange.fail(415, WANTED);
  }

  /** Whether {@code value}, a Content-Type header or null, declares JSON in UTF-8. */
  static boolean accepts(String value) {
    if (value == null || value.indexOf(',') >= 0) {
      return false;
    }
    int n = value.length();
    int i = skipSpace(value, 0);
    if (!value.regionMatches(true, i, TYPE, 0, TYPE.length())) {
      return false;
    }
    i = skipSpace(value, i + TYPE.length());
    while (i < n) {
      if (value.charAt(i) != ';') {
        return false; // more after the media type, as in application/jsonx
      }
      i = skipSpace(value, i + 1);
      if (i == n) {
        return true; // a trailing ';'
      }
      int name = i;
      while (i < n && token(value.charAt(i))) {
        i++;
      }
      if (i == name || i == n || value.charAt(i) != '=') {
        return false;
      }
      int nameEnd = i++;
      int start;
      int end;
      if (i < n && value.charAt(i) == '"') {
        start = ++i;
        while (i < n && value.charAt(i) != '"') {
          i += value.charAt(i) == '\\' ? 2 : 1;
        }
        if (i >= n) {
          return false; // no closing quote
        }
        end = i++;
      } else {
        start = i;
        while (i < n && token(value.charAt(i))) {
          i++;
        }
        end = i;
      }
      if (nameEnd - name == CHARSET.length()
          && value.regionMatches(true, name, CHARSET, 0, CHARSET.length())
          && !(end - start == UTF8.length()
              && value.regionMatches(true, start, UTF8, 0, UTF8.length()))) {
        return false;
      }
      i = skipSpace(value, i);
    }
    return true;
  }

  private static int skipSpace(String value, int i) {
    while (i < value.length() && (value.charAt(i) == ' ' || value.charAt(i) == '\t')) {
      i++;
    }
    return i;
  }

  /** Whether {@code c} may stand in a parameter's name or unquoted value. */
  private static boolean token(char c) {
    return c > ' ' && c < 0x7f && "()<>@,;:\\\"/[]?={}".indexOf(c) < 0;
  }
}
