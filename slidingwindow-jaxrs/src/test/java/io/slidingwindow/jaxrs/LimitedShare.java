package io.slidingwindow.jaxrs;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/**
 * A sub-resource limited to 3 requests an hour, which the locator tests return from their locators:
 * a failed lookup of a share counts against it, so that after three failed guesses an issued share
 * is refused.
 */
public class LimitedShare {

  @GET
  @Produces(MediaType.TEXT_PLAIN)
  @RateLimit(limits = "3/1h", name = "share")
  public String get() {
    return "shared";
  }

  /** The locator's step: the share of a token that starts with {@code issued}, else 404. */
  static LimitedShare lookUp(String token) {
    if (!token.startsWith("issued")) {
      throw new NotFoundException();
    }
    return new LimitedShare();
  }
}
