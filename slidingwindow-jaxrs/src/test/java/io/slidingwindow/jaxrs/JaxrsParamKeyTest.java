package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Resolvers of the application's own that key on a path or query parameter, read as docs/jaxrs.md
 * says ({@code UriInfo}'s decoded parameters, the first value): every spelling of one value that
 * the resource reads as that value shares its window, on both runtimes. Percent-encoded and plain
 * path segments, {@code +} and {@code %20} in a query, repeated query parameters.
 */
class JaxrsParamKeyTest extends JaxrsServerCase {

  /** Reports of a tenant, read with {@code @PathParam} and {@code @QueryParam}. */
  @Path("/")
  @Produces(MediaType.TEXT_PLAIN)
  public static class Reports {
    final ConcurrentLinkedQueue<String> read = new ConcurrentLinkedQueue<>();

    @GET
    @Path("tenants/{tenant}")
    @RateLimit(limits = "2/1h", key = "resolver:tenant", name = "tenant")
    public String byPath(@PathParam("tenant") String tenant) {
      read.add(tenant);
      return tenant;
    }

    @GET
    @Path("reports")
    @RateLimit(limits = "2/1h", key = "resolver:user", name = "user")
    public String byQuery(@QueryParam("user") String user) {
      read.add(user);
      return user;
    }
  }

  private final Reports reports = new Reports();

  private void start(JaxrsServers.Implementation runtime) {
    server =
        JaxrsServers.start(
            runtime,
            List.of(
                reports,
                RateLimitFeature.builder()
                    .limiterFactory(RateLimiterFactory.inMemory(ticker, 1_000))
                    .keyResolver(
                        "tenant",
                        request ->
                            RequestKey.custom(
                                request.getUriInfo().getPathParameters().getFirst("tenant")))
                    .keyResolver(
                        "user",
                        request ->
                            RequestKey.custom(
                                request.getUriInfo().getQueryParameters().getFirst("user")))
                    .build()));
  }

  private List<Integer> statuses(String... paths) {
    List<Integer> statuses = new ArrayList<>();
    for (String path : paths) {
      statuses.add(status(path));
    }
    return statuses;
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void pathParameter_percentEncodedAndPlain_oneWindow(JaxrsServers.Implementation runtime) {
    start(runtime);

    assertThat(statuses("/tenants/acme", "/tenants/%61cme", "/tenants/ac%6De"))
        .containsExactly(200, 200, 429);
    assertThat(statuses("/tenants/a%20b", "/tenants/a%20%62", "/tenants/%61%20b"))
        .as("a space")
        .containsExactly(200, 200, 429);
    assertThat(reports.read).containsExactly("acme", "acme", "a b", "a b");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void queryParameter_plusAndPercentTwenty_repeated_oneWindow(JaxrsServers.Implementation runtime) {
    start(runtime);

    assertThat(statuses("/reports?user=a+b", "/reports?user=a%20b", "/reports?user=%61+b"))
        .containsExactly(200, 200, 429);
    assertThat(
            statuses(
                "/reports?user=x&user=junk-1",
                "/reports?user=x&user=junk-2",
                "/reports?user=%78&user=junk-3"))
        .as("repeated: the first value, as the resource reads it")
        .containsExactly(200, 200, 429);
    assertThat(statuses("/reports?user=a%2Bb"))
        .as("a plus sign is another user")
        .containsExactly(200);
    assertThat(reports.read).containsExactly("a b", "a b", "x", "x", "a+b");
  }
}
