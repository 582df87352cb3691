package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A limited sub-resource locator beside an unlimited resource method of the same class, both
 * templates taking a guess's path with as many literal characters: JAX-RS goes on to the number of
 * variables, then of variables with their own regular expression, and here prefers the locator, so
 * the guess ran the locator's lookup and is counted by its class. Before, a method with as many
 * literal characters was taken to have won, and such guesses were counted by nothing. RESTEasy
 * leaves the variables out of its order: where it runs the locator and Jersey the method, the
 * guesses are counted on RESTEasy too.
 */
class JaxrsLocatorBesideMethodTest extends JaxrsServerCase {

  /**
   * A link by name, read by an unlimited method, and a share by a token of its own form, whose
   * template has a regular expression of its own: on a path both take, the runtime runs the
   * locator.
   */
  @Path("links")
  public static class Links {
    @GET
    @Path("{name}")
    @Produces(MediaType.TEXT_PLAIN)
    public String byName(@PathParam("name") String name) {
      return "link " + name;
    }

    @Path("{token: [a-z]+-[0-9]+}")
    public LimitedShare share(@PathParam("token") String token) {
      return LimitedShare.lookUp(token);
    }
  }

  /**
   * A profile's pages, read by an unlimited method of one variable, and a share by owner and token,
   * one literal character each: on a path both take, the runtime runs the locator, of two
   * variables.
   */
  @Path("people")
  public static class People {
    @GET
    @Path("@{page: .+}")
    @Produces(MediaType.TEXT_PLAIN)
    public String page(@PathParam("page") String page) {
      return "page " + page;
    }

    @Path("{owner}/{token}")
    public LimitedShare share(@PathParam("owner") String owner, @PathParam("token") String token) {
      return LimitedShare.lookUp(token);
    }
  }

  /**
   * A share by owner and token, read by an unlimited method of two variables, and a limited share
   * by a handle of a regular expression of its own: on a path both take, Jersey runs the method
   * (more variables), RESTEasy the locator (it leaves variables out of its order).
   */
  @Path("handles")
  public static class Handles {
    @GET
    @Path("{owner}/{token}")
    @Produces(MediaType.TEXT_PLAIN)
    public String byOwner(@PathParam("owner") String owner, @PathParam("token") String token) {
      return "share " + owner + "/" + token;
    }

    @Path("@{handle: .+}")
    public LimitedShare byHandle(@PathParam("handle") String handle) {
      return LimitedShare.lookUp(handle);
    }
  }

  /**
   * A link by name, read by an unlimited method, and a share whose locator's template differs from
   * the method's only by a trailing slash, which the runtimes do not count as a literal character:
   * the two templates are one, and the method wins on a path both take. A resource method takes at
   * most one slash past its template; a path that goes on by more is the locator's.
   */
  @Path("trail")
  public static class Trail {
    final AtomicInteger lookups = new AtomicInteger();

    @GET
    @Path("{name}")
    @Produces(MediaType.TEXT_PLAIN)
    public String byName(@PathParam("name") String name) {
      return "link " + name;
    }

    @Path("{token}/")
    public LimitedShare share(@PathParam("token") String token) {
      lookups.incrementAndGet();
      return LimitedShare.lookUp(token);
    }
  }

  /** As {@link Trail}, the locator's template without the trailing slash: the same template. */
  @Path("plain")
  public static class Plain {
    final AtomicInteger lookups = new AtomicInteger();

    @GET
    @Path("{name}")
    @Produces(MediaType.TEXT_PLAIN)
    public String byName(@PathParam("name") String name) {
      return "link " + name;
    }

    @Path("{token}")
    public LimitedShare share(@PathParam("token") String token) {
      lookups.incrementAndGet();
      return LimitedShare.lookUp(token);
    }
  }

  /** The issued share, reached only through a locator of its own. */
  @Path("direct")
  public static class Direct {
    @Path("{token}")
    public LimitedShare share(@PathParam("token") String token) {
      return LimitedShare.lookUp(token);
    }
  }

  /** The statuses of three GETs of {@code path}, in order. */
  private List<Integer> thrice(String path) {
    return List.of(status(path), status(path), status(path));
  }

  /**
   * The statuses of GETs of {@code guesses} followed by {@code guess-1}, {@code guess-2} and {@code
   * guess-3}, then of {@code issued}, in that order.
   */
  private List<Integer> guessesThenIssued(String guesses, String issued) {
    return List.of(
        status(guesses + "guess-1"),
        status(guesses + "guess-2"),
        status(guesses + "guess-3"),
        status(issued));
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorTheRuntimesOrderApart_guessesCountWhereItRan(JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new Handles(), feature()));

    boolean jersey = runtime == JaxrsServers.Implementation.JERSEY;
    assertThat(guessesThenIssued("/handles/@ann/", "/handles/@issued-1"))
        .as("where the runtime ran the locator, three guesses spent Share's 3/1h")
        .containsExactly(
            jersey ? new Integer[] {200, 200, 200, 200} : new Integer[] {404, 404, 404, 429});
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorPreferredByItsOwnRegex_guessesCountAgainstItsClass(
      JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new Links(), feature()));

    assertThat(thrice("/links/readme"))
        .as("names the locator's template does not take reach the unlimited method")
        .containsExactly(200, 200, 200);
    assertThat(guessesThenIssued("/links/", "/links/issued-1"))
        .as("the runtime ran the locator for each guess: three spent Share's 3/1h")
        .containsExactly(404, 404, 404, 429);
    assertThat(status("/links/readme")).as("the method is not limited").isEqualTo(200);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorPreferredByItsVariables_guessesCountAgainstItsClass(
      JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new People(), feature()));

    assertThat(thrice("/people/@ann"))
        .as("one segment: only the unlimited method takes it")
        .containsExactly(200, 200, 200);
    // RESTEasy orders templates by literal characters, then by variables with a regular
    // expression of their own, never by variables: it runs the method, which serves them all.
    assertThat(guessesThenIssued("/people/@ann/", "/people/@ann/issued-1"))
        .as("where the runtime ran the locator, three guesses spent Share's 3/1h")
        .containsExactly(
            runtime == JaxrsServers.Implementation.JERSEY
                ? new Integer[] {404, 404, 404, 429}
                : new Integer[] {200, 200, 200, 200});
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void trailingSlashesBesideMethod_guessesCountedWheneverTheLocatorRan(
      JaxrsServers.Implementation runtime) {
    Trail trail = new Trail();
    Plain plain = new Plain();
    server = JaxrsServers.start(runtime, List.of(trail, plain, new Direct(), feature()));

    List<String> walkedAround = new ArrayList<>();
    List<String> ranLocator = new ArrayList<>();
    for (String root : List.of("/trail", "/plain")) {
      for (String rest : List.of("/guess", "/guess/", "/guess//", "/guess///", "/guess/more")) {
        int before = trail.lookups.get() + plain.lookups.get();
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
          statuses.add(status(root + rest));
        }
        boolean ran = trail.lookups.get() + plain.lookups.get() > before;
        if (ran) {
          ranLocator.add(root + rest);
        }
        int issued = status("/direct/issued-1");
        if (issued != (ran ? 429 : 200)) {
          walkedAround.add(
              root + rest + " " + statuses + (ran ? " ran the locator" : "") + ", then " + issued);
        }
        ticker.advance(Duration.ofHours(2));
      }
    }
    assertThat(walkedAround).as("guesses counted other than as they ran the locator").isEmpty();
    assertThat(ranLocator)
        .as("a path that goes on is the locator's")
        .contains("/trail/guess/more", "/plain/guess/more")
        .doesNotContain("/trail/guess", "/trail/guess/", "/plain/guess", "/plain/guess/");
  }
}
