package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two locators of one class whose templates both take a failed guess's path, one declared to return
 * {@code Object} (nothing known to count against after a restart), the other a limited class that
 * the runtime prefers by its template's regular expression: the guess counts against the limited
 * class, whichever of the two the class lists first.
 */
class JaxrsLocatorSiblingTest extends JaxrsServerCase {

  /** The {@code Object} locator is named so that reflection tends to list it first. */
  @Path("shelf")
  public static class Shelf {
    @Path("{other}")
    public Object aOther(@PathParam("other") String other) {
      throw new NotFoundException();
    }

    @Path("{token: (issued|guess).*}")
    public Share zShare(@PathParam("token") String token) {
      if (!token.startsWith("issued")) {
        throw new NotFoundException();
      }
      return new Share();
    }
  }

  /** What {@link Shelf#zShare} returns. */
  public static class Share {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "3/1h", name = "share")
    public String read() {
      return "share";
    }
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void guessTakenByBothLocators_countsAgainstTheLimitedOne_beforeAnythingWasSeen(
      JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new Shelf(), feature()));

    assertThat(
            List.of(
                status("/shelf/guess1"),
                status("/shelf/guess2"),
                status("/shelf/guess3"),
                status("/shelf/issued-1")))
        .as("three failed guesses spent Share's 3/1h, though an Object locator takes them too")
        .containsExactly(404, 404, 404, 429);
  }
}
