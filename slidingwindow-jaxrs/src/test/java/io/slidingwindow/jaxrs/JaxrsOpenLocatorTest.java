package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.net.http.HttpResponse;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The start-up check on classes a locator is declared to return, on Jersey and RESTEasy: an
 * annotation on a plain method of a class a locator is declared to return fails the start, even
 * when the class is not final (the runtime would otherwise fail each request through the locator);
 * and a root that a container registers as a proxy subclass of the user's class is the same
 * resource as that class reached through a locator.
 */
class JaxrsOpenLocatorTest extends JaxrsServerCase {

  /** Its locator is declared to return {@link Animal} and returns a {@link Dog}. */
  @Path("zoo")
  public static class Zoo {
    @Path("animal")
    public Animal animal() {
      return new Dog();
    }
  }

  /** Limits {@link #speak}, which only a subclass makes a resource method. */
  public static class Animal {
    @RateLimit(limits = "1/1h", name = "animal")
    public String speak() {
      return "...";
    }
  }

  /** Would answer GET with the limit {@link Animal} puts on {@link #speak}. */
  public static class Dog extends Animal {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @Override
    public String speak() {
      return "woof";
    }
  }

  /** The workaround: its locator declares the class it returns. */
  @Path("kennel")
  public static class Kennel {
    @Path("dog")
    public Dog dog() {
      return new Dog();
    }
  }

  /** A limited root, which also locates a copy of itself. */
  @Path("ledger")
  public static class Ledger {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "2/1h", name = "ledger")
    public String read() {
      return "ledger";
    }

    @Path("copy")
    public Ledger copy() {
      return new Ledger();
    }
  }

  /**
   * What a container that proxies beans registers in place of {@link Ledger}: a subclass, named as
   * such classes are, overriding each method without annotations.
   */
  @SuppressWarnings("checkstyle:TypeName")
  public static class Ledger$$SpringCGLIB$$0 extends Ledger {
    @Override
    public String read() {
      return super.read();
    }

    @Override
    public Ledger copy() {
      return super.copy();
    }
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorDeclaredToReturnAClassNotFinal_annotatedPlainMethod_failsTheStartNamingIt(
      JaxrsServers.Implementation runtime) {
    Throwable thrown =
        catchThrowable(
            () -> server = JaxrsServers.start(runtime, List.of(new Zoo(), featureWithHeaders())));

    assertThat(thrown).as("the start on %s", runtime).isNotNull();
    assertThat(thrown)
        .hasStackTraceContaining(
            "@RateLimit on " + Animal.class.getName() + ".speak would limit nothing")
        .hasStackTraceContaining("no resource method");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorDeclaredToReturnTheSubclass_startsAndLimits(JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new Kennel(), featureWithHeaders()));

    HttpResponse<String> first = Http.get(server.uri("/kennel/dog"));
    HttpResponse<String> second = Http.get(server.uri("/kennel/dog"));

    assertThat(first.body()).isEqualTo("woof");
    assertThat(second.statusCode()).as("the second in the hour").isEqualTo(429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void proxySubclassRoot_itsClassAlsoLocated_oneRuleNoNameTaken(
      JaxrsServers.Implementation runtime) {
    server =
        JaxrsServers.start(runtime, List.of(new Ledger$$SpringCGLIB$$0(), featureWithHeaders()));

    HttpResponse<String> root = Http.get(server.uri("/ledger"));
    HttpResponse<String> copy = Http.get(server.uri("/ledger/copy"));
    HttpResponse<String> third = Http.get(server.uri("/ledger/copy/copy"));

    assertThat(root.body()).isEqualTo("ledger");
    assertThat(copy.body()).isEqualTo("ledger");
    assertThat(third.statusCode())
        .as("one limit of 2 an hour, whichever way the method is reached")
        .isEqualTo(429);
  }
}
