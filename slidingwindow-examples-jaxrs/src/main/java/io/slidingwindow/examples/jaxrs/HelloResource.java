package io.slidingwindow.examples.jaxrs;

import io.slidingwindow.jaxrs.RateLimit;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** {@code GET /hello}: at most 5 calls in any 10 seconds per client address. */
@Path("/hello")
public class HelloResource {

  /** Says hello. */
  @GET
  @Produces(MediaType.TEXT_PLAIN)
  @RateLimit(limits = "5/10s", name = "hello")
  public String hello() {
    return "Hello";
  }
}
