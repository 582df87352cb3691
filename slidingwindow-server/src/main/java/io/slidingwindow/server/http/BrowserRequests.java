package io.slidingwindow.server.http;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.util.AsciiString;

/**
 * The check that a request to a body endpoint does not come from a web page, which those endpoints
 * make before the content type's ({@link JsonContentType}).
 *
 * <p>Why: the content type keeps out a page of another origin, whose browser must ask before
 * sending {@code application/json} and is never answered yes. A page whose host name its owner
 * rebinds to the service's address (DNS rebinding) is, for the browser, of the same origin as the
 * service and sends {@code application/json} without asking. But a browser names the page's origin
 * on every such request: {@code Origin} on every cross-origin request and on a same-origin {@code
 * POST}, {@code PUT} or {@code DELETE}, the requests these endpoints take ({@code Sec-Fetch-Site}
 * too, but only to HTTPS, {@code localhost} and loopback addresses). Callers of the service (Envoy,
 * a gateway, an SDK, curl) send neither, so a request carrying either is refused, 403, whatever its
 * value. {@code Sec-Fetch-Mode} alone is not a sign of a browser: Node.js's built-in {@code fetch}
 * sends {@code Sec-Fetch-Mode: cors} on every request, from servers too.
 *
 * <p>The check looks the two names up among the request's headers and allocates nothing.
 */
public final class BrowserRequests {

  /** What a refused request is told. */
  public static final String REFUSED =
      "a request from a web browser (it carries Origin or Sec-Fetch-Site) is not served here;"
          + " call the service from a server";

  private static final AsciiString SEC_FETCH_SITE = AsciiString.cached("sec-fetch-site");

  private BrowserRequests() {}

  /** Whether {@code exchange} carries a header only a browser sends. */
  public static boolean fromBrowser(Exchange exchange) {
    return exchange.hasHeader(HttpHeaderNames.ORIGIN) || exchange.hasHeader(SEC_FETCH_SITE);
  }

  /** Answers {@code exchange} 403 with {@link #REFUSED}. */
  public static void refuse(Exchange exchange) {
    exchange.fail(403, REFUSED);
  }
}
