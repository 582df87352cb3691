package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.LogCapture;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Requests that end in a sub-resource locator whose declared return type is no class the start-up
 * walk can follow (an interface, an abstract class, {@code Object}), or in a locator deeper in a
 * chain, on Jersey and RESTEasy: each is counted by the limits a client guessing tokens would
 * otherwise walk around.
 */
class JaxrsLocatorChainTest extends JaxrsServerCase {

  private LogCapture logged;

  @BeforeEach
  void record() {
    logged = LogCapture.atConfiguredLevel("");
  }

  @AfterEach
  void stop() {
    logged.close();
  }

  private static void lookUp(String token) {
    if (!token.startsWith("issued")) {
      throw new NotFoundException();
    }
  }

  /** Locators declared to return an interface, an abstract class and {@code Object}. */
  @Path("vault")
  public static class Vault {
    @Path("entry/{token}")
    public Entry entry(@PathParam("token") String token) {
      lookUp(token);
      return new EntryImpl();
    }

    @Path("page/{token}")
    public Page page(@PathParam("token") String token) {
      lookUp(token);
      return new Sheet();
    }

    @Path("sheet")
    public Sheet sheet() {
      return new Sheet();
    }

    @Path("lock/{token}")
    public Lock lock(@PathParam("token") String token) {
      lookUp(token);
      return new Padlock();
    }

    @Path("item/{token}")
    public Object item(@PathParam("token") String token) {
      lookUp(token);
      return new Item();
    }
  }

  /** A contract whose method carries the limit. */
  public interface Entry {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "2/1h", name = "entry")
    String read();
  }

  /** What {@link Vault#entry} returns. */
  public static class EntryImpl implements Entry {
    @Override
    public String read() {
      return "entry";
    }
  }

  /** A contract with nothing of its own. */
  public abstract static class Page {}

  /** What {@link Vault#page} returns; another locator declares it, so it is known at the start. */
  public static class Sheet extends Page {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "2/1h", name = "sheet")
    public String read() {
      return "sheet";
    }
  }

  /** A contract that limits nothing itself, and that no class known at the start implements. */
  public interface Lock {}

  /** What {@link Vault#lock} returns, known only once seen. */
  public static class Padlock implements Lock {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "2/1h", name = "padlock")
    public String read() {
      return "padlock";
    }
  }

  /** What {@link Vault#item} returns, declared as {@code Object}. */
  public static class Item {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "3/1h", name = "item")
    public String read() {
      return "item";
    }
  }

  /** A chain: an organisation's teams, each with members. */
  @Path("org")
  public static class Org {
    @Path("t/{team}")
    public Team team(@PathParam("team") String team) {
      lookUp(team);
      return new Team();
    }
  }

  /** A team, limited, whose own locator looks its members up. */
  public static class Team {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "2/1h", name = "team")
    public String get() {
      return "team";
    }

    @Path("m/{member}")
    public Member member(@PathParam("member") String member) {
      lookUp(member);
      return new Member();
    }
  }

  /** A member, not limited. */
  public static class Member {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String get() {
      return "member";
    }
  }

  private void start(JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new Vault(), new Org(), feature()));
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void interfaceLocator_guessesCountAgainstTheContractsLimit(JaxrsServers.Implementation runtime) {
    start(runtime);

    assertThat(
            List.of(
                status("/vault/entry/guess1"),
                status("/vault/entry/guess2"),
                status("/vault/entry/guess3"),
                status("/vault/entry/issued-1")))
        .as("guesses through a locator declared to return an interface")
        .containsExactly(404, 404, 429, 429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void abstractLocator_guessesCountAgainstTheKnownSubclass(JaxrsServers.Implementation runtime) {
    start(runtime);

    assertThat(
            List.of(
                status("/vault/page/guess1"),
                status("/vault/page/guess2"),
                status("/vault/page/guess3"),
                status("/vault/page/issued-1")))
        .as("guesses through a locator declared to return an abstract class")
        .containsExactly(404, 404, 429, 429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void objectLocator_guessesCountOnceTheClassReturnedIsSeen_andTheStartWarns(
      JaxrsServers.Implementation runtime) {
    start(runtime);

    assertThat(
            List.of(
                status("/vault/item/issued-1"),
                status("/vault/item/guess1"),
                status("/vault/item/guess2"),
                status("/vault/item/issued-1")))
        .as("once the locator was seen returning Item, guesses count against Item's 3/1h")
        .containsExactly(200, 404, 404, 429);
    assertThat(logged.records())
        .as("the start warns of the locator declared to return Object")
        .anySatisfy(
            r ->
                assertThat(r.getMessage())
                    .contains(Vault.class.getName() + ".item")
                    .contains("Object"));
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void interfaceLocatorToNoClassKnown_countsOnceSeen_andTheStartWarns(
      JaxrsServers.Implementation runtime) {
    start(runtime);

    assertThat(logged.records())
        .as("the start warns of the locator whose interface leads to no class known")
        .anySatisfy(r -> assertThat(r.getMessage()).contains(Vault.class.getName() + ".lock"))
        .noneSatisfy(r -> assertThat(r.getMessage()).contains(Vault.class.getName() + ".entry"))
        .noneSatisfy(r -> assertThat(r.getMessage()).contains(Vault.class.getName() + ".page"));
    assertThat(
            List.of(
                status("/vault/lock/issued-1"),
                status("/vault/lock/guess1"),
                status("/vault/lock/guess2"),
                status("/vault/lock/issued-1")))
        .as("once the locator was seen returning Padlock, guesses count against its 2/1h")
        .containsExactly(200, 404, 429, 429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void chain_guessesInTheInnerLocatorCountAgainstTheLevelAbove(
      JaxrsServers.Implementation runtime) {
    start(runtime);

    assertThat(
            List.of(
                status("/org/t/issued-t/m/guess1"),
                status("/org/t/issued-t/m/guess2"),
                status("/org/t/issued-t/m/guess3"),
                status("/org/t/issued-t")))
        .as("member guesses ran the team's locator: counted against the team's 2/1h")
        .containsExactly(404, 404, 429, 429);
  }
}
