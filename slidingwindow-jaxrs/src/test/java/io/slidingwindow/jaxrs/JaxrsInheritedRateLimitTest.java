package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.jaxrs.scanned.ScannedLocatorRoot;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Set;
import org.glassfish.jersey.server.ResourceConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@code @RateLimit} on an interface or a superclass limits the method that implements or overrides
 * it, on Jersey and RESTEasy; one on a sub-resource locator fails the start, also when the locator
 * is all its root resource class has.
 */
class JaxrsInheritedRateLimitTest extends JaxrsServerCase {

  /** The contract, annotated; the implementation is not. */
  public interface OrderApi {
    @GET
    @Path("o/{id}")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "1/1h")
    String order(@PathParam("id") String id);
  }

  /** Implements {@link OrderApi} without repeating an annotation. */
  @Path("contract")
  public static class OrderImpl implements OrderApi {
    @Override
    public String order(String id) {
      return "order " + id;
    }
  }

  /** A resource whose method carries the limit. */
  public static class Reports {
    @GET
    @Path("r")
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "1/1h")
    public String report() {
      return "report";
    }
  }

  /** Overrides the limited method without the annotation. */
  @Path("overridden")
  public static class OverriddenReports extends Reports {
    @Override
    public String report() {
      return "overridden report";
    }
  }

  /** A locator carrying the annotation, which no filter can be bound to. */
  @Path("root")
  public static class Root {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String root() {
      return "root";
    }

    @Path("child")
    @RateLimit(limits = "1/1h")
    public Child child() {
      return new Child();
    }
  }

  /** The sub-resource of {@link Root}. */
  public static class Child {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String get() {
      return "child";
    }
  }

  /** A locator without the annotation, to a sub-resource whose method has it. */
  @Path("parent")
  public static class Parent {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String parent() {
      return "parent";
    }

    @Path("kid")
    public Kid kid() {
      return new Kid();
    }
  }

  /** The sub-resource of {@link Parent}, limited. */
  public static class Kid {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "1/1h", name = "kid")
    public String get() {
      return "kid";
    }
  }

  /** A root resource with nothing but an annotated locator: no resource method of its own. */
  @Path("locating")
  public static class LocatorOnlyRoot {
    @Path("child")
    @RateLimit(limits = "1/1h")
    public Child child() {
      return new Child();
    }
  }

  /** A root resource whose only method is the annotated locator it inherits. */
  @Path("inheriting")
  public static class InheritingLocatorRoot extends LocatorOnlyRoot {}

  /** A root resource with nothing but a locator, to a sub-resource whose method is limited. */
  @Path("guardian")
  public static class LocatorOnlyParent {
    @Path("ward")
    public Ward ward() {
      return new Ward();
    }
  }

  /** The sub-resource of {@link LocatorOnlyParent}, limited to two requests an hour. */
  public static class Ward {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "2/1h", name = "ward")
    public String get() {
      return "ward";
    }
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void interfaceMethodAnnotated_implementationLimited(JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new OrderImpl(), featureWithHeaders()));

    HttpResponse<String> first = Http.get(server.uri("/contract/o/1"));
    HttpResponse<String> second = Http.get(server.uri("/contract/o/2"));

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("order 1");
    assertThat(first.headers().firstValue("RateLimit-Policy"))
        .contains("\"OrderImpl.order\";q=1;w=3600");
    assertThat(second.statusCode()).isEqualTo(429);
    assertThat(second.headers().firstValue("Retry-After")).isPresent();
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void superclassMethodAnnotated_overriddenWithout_stillLimited(
      JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new OverriddenReports(), featureWithHeaders()));

    HttpResponse<String> first = Http.get(server.uri("/overridden/r"));
    HttpResponse<String> second = Http.get(server.uri("/overridden/r"));

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("overridden report");
    assertThat(second.statusCode()).isEqualTo(429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void annotatedSubResourceLocator_failsTheStartNamingIt(JaxrsServers.Implementation runtime) {
    assertThatThrownBy(
            () -> server = JaxrsServers.start(runtime, List.of(new Root(), featureWithHeaders())))
        .hasStackTraceContaining(
            "@RateLimit on " + Root.class.getName() + ".child would limit nothing")
        .hasStackTraceContaining("sub-resource locator");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorOnlyRootInstance_annotatedLocator_failsTheStartNamingIt(
      JaxrsServers.Implementation runtime) {
    assertThatThrownBy(
            () ->
                server =
                    JaxrsServers.start(
                        runtime, List.of(new LocatorOnlyRoot(), featureWithHeaders())))
        .hasStackTraceContaining(
            "@RateLimit on " + LocatorOnlyRoot.class.getName() + ".child would limit nothing")
        .hasStackTraceContaining("sub-resource locator");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorOnlyRootClass_annotatedLocator_failsTheStartNamingIt(
      JaxrsServers.Implementation runtime) {
    assertThatThrownBy(
            () ->
                server =
                    JaxrsServers.start(
                        runtime, Set.of(LocatorOnlyRoot.class), List.of(featureWithHeaders())))
        .hasStackTraceContaining(
            "@RateLimit on " + LocatorOnlyRoot.class.getName() + ".child would limit nothing")
        .hasStackTraceContaining("sub-resource locator");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorOnlyRoot_annotatedLocatorInherited_failsTheStartNamingBoth(
      JaxrsServers.Implementation runtime) {
    assertThatThrownBy(
            () ->
                server =
                    JaxrsServers.start(
                        runtime, List.of(new InheritingLocatorRoot(), featureWithHeaders())))
        .hasStackTraceContaining(
            "@RateLimit on "
                + LocatorOnlyRoot.class.getName()
                + ".child (of resource class "
                + InheritingLocatorRoot.class.getName()
                + ") would limit nothing");
  }

  @Test
  void locatorOnlyRootFoundByJerseyPackageScan_failsTheStartNamingIt() {
    ResourceConfig config =
        new ResourceConfig().packages(false, ScannedLocatorRoot.class.getPackageName());
    config.register(featureWithHeaders());

    assertThatThrownBy(() -> server = JaxrsServers.jersey(config, "/app"))
        .hasStackTraceContaining(
            "@RateLimit on " + ScannedLocatorRoot.class.getName() + ".child would limit nothing");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void locatorOnlyRoot_subResourceMethodAnnotated_limitedOnce(JaxrsServers.Implementation runtime) {
    server =
        JaxrsServers.start(
            runtime, Set.of(LocatorOnlyParent.class), List.of(new Parent(), featureWithHeaders()));

    HttpResponse<String> first = Http.get(server.uri("/guardian/ward"));
    HttpResponse<String> second = Http.get(server.uri("/guardian/ward"));
    HttpResponse<String> third = Http.get(server.uri("/guardian/ward"));

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("ward");
    assertThat(first.headers().firstValue("RateLimit").map(v -> v.replaceAll(";t=.*", "")))
        .contains("\"ward\";r=1");
    assertThat(second.statusCode()).isEqualTo(200);
    assertThat(second.headers().firstValue("RateLimit").map(v -> v.replaceAll(";t=.*", "")))
        .contains("\"ward\";r=0");
    assertThat(third.statusCode()).isEqualTo(429);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void subResourceMethodAnnotated_limited(JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new Parent(), featureWithHeaders()));

    HttpResponse<String> first = Http.get(server.uri("/parent/kid"));
    HttpResponse<String> second = Http.get(server.uri("/parent/kid"));

    assertThat(first.statusCode()).isEqualTo(200);
    assertThat(first.body()).isEqualTo("kid");
    assertThat(second.statusCode()).isEqualTo(429);
  }
}
