package io.slidingwindow.jaxrs.scanned;

import io.slidingwindow.jaxrs.Api;
import io.slidingwindow.jaxrs.RateLimit;
import jakarta.ws.rs.Path;

/**
 * A root resource with nothing but an annotated sub-resource locator, found only by Jersey's
 * package scanning (JaxrsInheritedRateLimitTest).
 */
@Path("scanned")
public class ScannedLocatorRoot {

  /** The annotated locator, which no filter can be bound to. */
  @Path("child")
  @RateLimit(limits = "1/1h")
  public Api child() {
    return new Api();
  }
}
