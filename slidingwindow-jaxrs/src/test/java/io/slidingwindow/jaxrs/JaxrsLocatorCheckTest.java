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
 * Classes that only sub-resource locators return, never registered as resources, are checked when
 * the application starts, on Jersey and RESTEasy: a bad {@code @RateLimit} there fails the start
 * naming the method, as one on a root resource does; a good one limits the requests that reach it
 * through any locator.
 */
class JaxrsLocatorCheckTest extends JaxrsServerCase {

  /** Starts {@code root} and the feature on {@code runtime}, and returns why the start failed. */
  private Throwable startFailure(JaxrsServers.Implementation runtime, Object root) {
    Throwable thrown =
        catchThrowable(
            () -> server = JaxrsServers.start(runtime, List.of(root, featureWithHeaders())));
    assertThat(thrown)
        .as(
            "the start on %s of %s, whose locators lead to a bad @RateLimit",
            runtime, root.getClass().getSimpleName())
        .isNotNull();
    return thrown;
  }

  /** Reaches {@link BadLimitCart} through a locator; has a resource method of its own. */
  @Path("shop")
  public static class Shop {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String shop() {
      return "shop";
    }

    @Path("cart")
    public BadLimitCart cart() {
      return new BadLimitCart();
    }
  }

  /** Reached only through {@link Shop#cart}; its limit cannot be read. */
  public static class BadLimitCart {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "two per hour")
    public String get() {
      return "cart";
    }
  }

  /** Two locators deep, with nothing but locators on the way, to {@link Vault}. */
  @Path("bank")
  public static class Bank {
    @Path("branch")
    public Branch branch() {
      return new Branch();
    }
  }

  /** The middle of {@link Bank}'s chain: only a locator. */
  public static class Branch {
    @Path("vault")
    public Vault vault() {
      return new Vault();
    }
  }

  /** Reached only through two locators; its key names a resolver the feature was not given. */
  public static class Vault {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "1/1h", key = "resolver:teller")
    public String open() {
      return "vault";
    }
  }

  /** A root method and a locator to {@link Namesake}, both rules named "orders". */
  @Path("orders")
  public static class Orders {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "5/1h", name = "orders")
    public String list() {
      return "orders";
    }

    @Path("archive")
    public Namesake archive() {
      return new Namesake();
    }
  }

  /** Reached only through {@link Orders#archive}; takes the name of {@link Orders#list}. */
  public static class Namesake {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "1/1h", name = "orders")
    public String list() {
      return "archived orders";
    }
  }

  /** Locates {@link LocatingChild}, whose own locator carries the annotation. */
  @Path("family")
  public static class Family {
    @Path("child")
    public LocatingChild child() {
      return new LocatingChild();
    }
  }

  /** Reached only through a locator, with nothing but an annotated locator of its own. */
  public static class LocatingChild {
    @Path("toy")
    @RateLimit(limits = "1/1h")
    public Toy toy() {
      return new Toy();
    }
  }

  /** The end of {@link Family}'s chain, unlimited. */
  public static class Toy {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String get() {
      return "toy";
    }
  }

  /** Two locators to one limited class, {@link Folder}, and a locator back to itself. */
  @Path("drive")
  public static class Drive {
    @Path("mine")
    public Folder mine() {
      return new Folder();
    }

    @Path("shared")
    public Folder shared() {
      return new Folder();
    }
  }

  /** A folder holds folders: its locator returns its own class. Limited to two listings an hour. */
  public static class Folder {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "2/1h", name = "folder")
    public String list() {
      return "folder";
    }

    @Path("sub")
    public Folder sub() {
      return new Folder();
    }
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorOnlyClass_unreadableLimit_failsTheStartNamingTheMethod(
      JaxrsServers.Implementation runtime) {
    assertThat(startFailure(runtime, new Shop()))
        .hasStackTraceContaining("@RateLimit on " + BadLimitCart.class.getName() + ".get: ")
        .hasStackTraceContaining("two per hour");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void classTwoLocatorsDeep_unknownResolver_failsTheStartNamingTheMethod(
      JaxrsServers.Implementation runtime) {
    assertThat(startFailure(runtime, new Bank()))
        .hasStackTraceContaining("@RateLimit on " + Vault.class.getName() + ".open: ")
        .hasStackTraceContaining("'teller'");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorOnlyClass_nameOfARootMethod_failsTheStartNamingBoth(
      JaxrsServers.Implementation runtime) {
    assertThat(startFailure(runtime, new Orders()))
        .hasStackTraceContaining("@RateLimit name 'orders'")
        .hasStackTraceContaining(Namesake.class.getName() + ".list")
        .hasStackTraceContaining(Orders.class.getName() + ".list");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorOnlyClass_annotatedLocator_failsTheStartNamingIt(
      JaxrsServers.Implementation runtime) {
    assertThat(startFailure(runtime, new Family()))
        .hasStackTraceContaining(
            "@RateLimit on " + LocatingChild.class.getName() + ".toy would limit nothing")
        .hasStackTraceContaining("sub-resource locator");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorOnlyClass_goodLimit_countsEveryWayThroughTheLocators(
      JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new Drive(), featureWithHeaders()));

    HttpResponse<String> first = Http.get(server.uri("/drive/mine"));
    HttpResponse<String> second = Http.get(server.uri("/drive/shared/sub"));
    HttpResponse<String> third = Http.get(server.uri("/drive/mine/sub/sub"));

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("folder");
    assertThat(first.headers().firstValue("RateLimit").map(v -> v.replaceAll(";t=.*", "")))
        .contains("\"folder\";r=1");
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(third.statusCode())
        .as("the third listing in the hour, through a third way in to the same method")
        .isEqualTo(429);
  }
}
