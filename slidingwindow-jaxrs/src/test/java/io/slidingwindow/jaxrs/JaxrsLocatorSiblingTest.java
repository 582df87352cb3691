package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Two locators of one class whose templates both take a failed guess's path, one declared to return
 * {@code Object} (nothing known to count against after a restart), the other a limited class that
 * the runtime prefers by its template's regular expression: the guess counts against the limited
 * class, whichever of the two the class lists first. And a failure in a locator the runtime prefers
 * by its literal path is not counted by a sibling it did not run. Where Jersey's order and
 * RESTEasy's (which leaves the number of variables out) disagree, both siblings count.
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
    public LimitedShare zShare(@PathParam("token") String token) {
      return LimitedShare.lookUp(token);
    }
  }

  /**
   * As {@link Shelf}, the names swapped, so that reflection tends to list the limited one first.
   */
  @Path("rack")
  public static class Rack {
    @Path("{token: (issued|guess).*}")
    public LimitedShare aShare(@PathParam("token") String token) {
      return LimitedShare.lookUp(token);
    }

    @Path("{other}")
    public Object zOther(@PathParam("other") String other) {
      throw new NotFoundException();
    }
  }

  /** A locator of a literal path beside a limited one of a variable: the runtime runs the first. */
  @Path("desk")
  public static class Desk {
    @Path("admin")
    public Object admin() {
      throw new NotFoundException();
    }

    @Path("{token}")
    public LimitedShare share(@PathParam("token") String token) {
      return LimitedShare.lookUp(token);
    }
  }

  /**
   * A limited locator of one variable with a regular expression of its own beside one declared to
   * return {@code Object} of two plain variables: Jersey runs the second (more variables), RESTEasy
   * the first (it leaves variables out of its order).
   */
  @Path("case")
  public static class Case {
    @Path("@{handle: .+}")
    public LimitedShare byHandle(@PathParam("handle") String handle) {
      return LimitedShare.lookUp(handle);
    }

    @Path("{owner}/{token}")
    public Object byOwner(@PathParam("owner") String owner, @PathParam("token") String token) {
      throw new NotFoundException();
    }
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void guessTheRuntimesOrderApart_countsAgainstTheLimitedOneOnBoth(
      JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new Case(), feature()));

    assertThat(
            List.of(
                status("/case/@ann/guess-1"),
                status("/case/@ann/guess-2"),
                status("/case/@ann/guess-3"),
                status("/case/@issued-1")))
        .as("either locator may have run the guess: each counts it, so Share's 3/1h holds")
        .containsExactly(404, 404, 404, 429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void guessTakenByBothLocators_countsAgainstTheLimitedOne_beforeAnythingWasSeen(
      JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new Shelf(), new Rack(), feature()));

    for (String base : List.of("/shelf/", "/rack/")) {
      assertThat(
              List.of(
                  status(base + "guess1"),
                  status(base + "guess2"),
                  status(base + "guess3"),
                  status(base + "issued-1")))
          .as(base + ": three failed guesses spent Share's 3/1h, an Object locator taking them too")
          .containsExactly(404, 404, 404, 429);
      ticker.advance(Duration.ofHours(2));
    }
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void failureInALiteralLocator_notCountedByAVariableSiblingTheRuntimeDidNotRun(
      JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new Desk(), feature()));

    assertThat(
            List.of(
                status("/desk/issued-1"),
                status("/desk/admin"),
                status("/desk/admin"),
                status("/desk/admin"),
                status("/desk/issued-1"),
                status("/desk/guess"),
                status("/desk/issued-1")))
        .as("failures in the admin locator spend nothing of Share's 3/1h; a guess does")
        .containsExactly(200, 404, 404, 404, 200, 404, 429);
  }
}
