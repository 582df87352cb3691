package io.slidingwindow.jaxrs;

import io.slidingwindow.Limit;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.testkit.http.AttackTable;
import io.slidingwindow.testkit.http.WayIn;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;

/**
 * The attack table against the JAX-RS filter and {@code @RateLimit}, each on Jersey (Grizzly) and
 * on RESTEasy (Undertow), the application at the root.
 */
class JaxrsAttackTableTest {

  private static final ClientAddresses CLIENTS =
      ClientAddresses.trusting(List.of(AttackTable.TRUSTED_PROXY));

  @TestFactory
  Stream<DynamicNode> attackTable() {
    return AttackTable.against(
        WayIn.named("JAX-RS filter on Jersey", () -> filtered(JaxrsServers.Implementation.JERSEY)),
        WayIn.named(
            "JAX-RS filter on RESTEasy", () -> filtered(JaxrsServers.Implementation.RESTEASY)),
        WayIn.named(
            "JAX-RS @RateLimit on Jersey", () -> annotated(JaxrsServers.Implementation.JERSEY)),
        WayIn.named(
            "JAX-RS @RateLimit on RESTEasy",
            () -> annotated(JaxrsServers.Implementation.RESTEASY)));
  }

  /** Keys on the issued API key, else on the client address. */
  private static RequestKey issuedOrAddress(
      jakarta.ws.rs.container.ContainerRequestContext request) {
    return AttackTable.ISSUED_KEY.equals(request.getHeaderString(AttackTable.API_KEY))
        ? RequestKey.custom(AttackTable.ISSUED_KEY)
        : JaxrsKeyResolver.clientAddress(CLIENTS).key(request);
  }

  private static RequestKey faulty(jakarta.ws.rs.container.ContainerRequestContext request) {
    String key = AttackTable.faultyKey(request::getHeaderString);
    return key == null ? null : RequestKey.custom(key);
  }

  private static WayIn filtered(JaxrsServers.Implementation runtime) {
    Limit limit = Limit.parse(AttackTable.LIMIT);
    RateLimitFilter filter =
        RateLimitFilter.builder()
            .clientAddresses(CLIENTS)
            .rule(
                HttpRule.builder("limited").path(AttackTable.LIMITED + "/**").limit(limit).build(),
                JaxrsAttackTableTest::issuedOrAddress)
            .rule(
                HttpRule.builder("raw").path(AttackTable.RAW + "/**").limit(limit).build(),
                JaxrsKeyResolver.header(AttackTable.API_KEY, CLIENTS))
            .rule(
                HttpRule.builder("faulty").path(AttackTable.FAULTY + "/**").limit(limit).build(),
                JaxrsAttackTableTest::faulty)
            .build();
    return started(runtime, List.of(filter, new Table()));
  }

  private static WayIn annotated(JaxrsServers.Implementation runtime) {
    RateLimitFeature feature =
        RateLimitFeature.builder()
            .clientAddresses(CLIENTS)
            .keyResolver("issued", JaxrsAttackTableTest::issuedOrAddress)
            .keyResolver("faulty", JaxrsAttackTableTest::faulty)
            .build();
    return started(runtime, List.of(feature, new AnnotatedTable()));
  }

  private static WayIn started(JaxrsServers.Implementation runtime, List<Object> singletons) {
    JaxrsServers.Running server = JaxrsServers.start(runtime, singletons, "");
    return WayIn.of(server.port(), server::close);
  }

  /** The table's three paths, answering its marker; the filter limits them. */
  @Path("/")
  @Produces(MediaType.TEXT_PLAIN)
  public static class Table {
    @GET
    @Path("limited/{id}")
    public String limited(@PathParam("id") String id) {
      return AttackTable.MARKER;
    }

    @GET
    @Path("raw/{id}")
    public String raw(@PathParam("id") String id) {
      return AttackTable.MARKER;
    }

    @GET
    @Path("faulty/{id}")
    public String faulty(@PathParam("id") String id) {
      return AttackTable.MARKER;
    }
  }

  /** The table's three paths, each limited by its {@code @RateLimit}. */
  @Path("/")
  @Produces(MediaType.TEXT_PLAIN)
  public static class AnnotatedTable {
    @GET
    @Path("limited/{id}")
    @RateLimit(limits = AttackTable.LIMIT, key = "resolver:issued", name = "limited")
    public String limited(@PathParam("id") String id) {
      return AttackTable.MARKER;
    }

    @GET
    @Path("raw/{id}")
    @RateLimit(limits = AttackTable.LIMIT, key = "header:" + AttackTable.API_KEY, name = "raw")
    public String raw(@PathParam("id") String id) {
      return AttackTable.MARKER;
    }

    @GET
    @Path("faulty/{id}")
    @RateLimit(limits = AttackTable.LIMIT, key = "resolver:faulty", name = "faulty")
    public String faulty(@PathParam("id") String id) {
      return AttackTable.MARKER;
    }
  }
}
