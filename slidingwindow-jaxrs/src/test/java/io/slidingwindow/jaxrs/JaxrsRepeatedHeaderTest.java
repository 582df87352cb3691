package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import io.slidingwindow.Limit;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.testkit.http.RawHttp;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.HeaderParam;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A header sent more than once, or one field line holding commas, on both runtimes: a rule keyed on
 * the header must key on the value the application reads with {@code @HeaderParam} (a {@code
 * String} parameter takes the first value), or a client sends the key it authenticates with plus a
 * second value that changes on every request and lands each request in a fresh window.
 */
class JaxrsRepeatedHeaderTest extends JaxrsServerCase {

  private static final String HEADER = "X-Api-Key";

  /** Authenticates {@code X-Api-Key: valid}, read as applications do, through the same rules. */
  @Path("/")
  @Produces(MediaType.TEXT_PLAIN)
  public static class Keyed {

    final ConcurrentLinkedQueue<String> seen = new ConcurrentLinkedQueue<>();

    @GET
    @Path("annotated")
    @RateLimit(limits = "2/10s", key = "header:" + HEADER, name = "annotated")
    public Response annotated(@HeaderParam(HEADER) String key) {
      return answer(key);
    }

    @GET
    @Path("filtered")
    public Response filtered(@HeaderParam(HEADER) String key) {
      return answer(key);
    }

    private Response answer(String key) {
      seen.add(String.valueOf(key));
      return "valid".equals(key)
          ? Response.ok("welcome").build()
          : Response.status(Response.Status.UNAUTHORIZED).entity("unknown key").build();
    }
  }

  private final ConcurrentLinkedQueue<String> stored = new ConcurrentLinkedQueue<>();
  private final Keyed keyed = new Keyed();

  /**
   * Serves {@link Keyed}: {@code /annotated} by its annotation, {@code /filtered} by the filter.
   */
  private void start(JaxrsServers.Implementation runtime) {
    RateLimiterFactory backend = recording(stored);
    RateLimitFilter filter =
        RateLimitFilter.builder()
            .limiterFactory(backend)
            .rule(
                HttpRule.builder("filtered").path("/filtered").limit(Limit.parse("2/10s")).build(),
                JaxrsKeyResolver.header(HEADER, ClientAddresses.direct()))
            .build();
    RateLimitFeature feature = RateLimitFeature.builder().limiterFactory(backend).build();
    server = JaxrsServers.start(runtime, new ArrayList<>(List.of(keyed, filter, feature)));
  }

  /** GETs {@code path} with {@code values}, each as a field line {@code X-Api-Key} of its own. */
  private RawHttp.Response get(String path, String... values) {
    List<String> headers = new ArrayList<>();
    for (String value : values) {
      headers.add(HEADER);
      headers.add(value);
    }
    return RawHttp.send(
        InetAddress.getLoopbackAddress(), server.port(), "GET", "/app" + path, headers);
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void theValidKeyRepeatedWithARotatingSecondValue_getsTheLimitOnce(
      JaxrsServers.Implementation runtime) {
    start(runtime);
    Map<String, List<Integer>> statuses = new LinkedHashMap<>();
    for (String path : List.of("/annotated", "/filtered")) {
      List<Integer> answers = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        answers.add(get(path, "valid", "junk-" + i).status());
      }
      answers.add(get(path, "valid").status());
      statuses.put(path, answers);
    }

    List<Integer> limited = List.of(200, 200, 429, 429, 429, 429, 429, 429, 429, 429, 429);
    assertThat(statuses)
        .as("2/10s for the key the resource authenticated, whatever the second value; then once")
        .containsExactly(entry("/annotated", limited), entry("/filtered", limited));
    assertThat(keyed.seen).hasSize(4).containsOnly("valid");
  }

  /**
   * Field lines as sent, and what {@code @HeaderParam String} reads from them: the first line, a
   * line with commas whole (neither runtime splits it), without the spaces around it.
   */
  private record Shape(List<String> lines, String read) {}

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void theKeyIsWhatTheResourceRead_forRepeatedLinesAndCommas(JaxrsServers.Implementation runtime) {
    start(runtime);
    List<Shape> shapes =
        List.of(
            new Shape(List.of("valid", "junk"), "valid"),
            new Shape(List.of("junk", "valid"), "junk"),
            new Shape(List.of("valid, junk"), "valid, junk"),
            new Shape(List.of("valid,junk"), "valid,junk"),
            new Shape(List.of("junk, valid"), "junk, valid"),
            new Shape(List.of("valid, junk", "other"), "valid, junk"),
            new Shape(List.of("  valid  ", "junk"), "valid"),
            new Shape(List.of("", "valid"), ""));
    for (Shape shape : shapes) {
      keyed.seen.clear();
      stored.clear();
      ticker.advance(Duration.ofMinutes(1));
      int status = get("/annotated", shape.lines().toArray(String[]::new)).status();

      assertThat(keyed.seen).as("@HeaderParam of %s", shape.lines()).containsExactly(shape.read());
      assertThat(stored)
          .as("the key of %s", shape.lines())
          .containsExactly(
              shape.read().isEmpty()
                  ? "ip:127.0.0.1" // a blank first value is no key, to the resource as here
                  : RequestKey.header(HEADER, shape.read()).value());
      assertThat(status)
          .as("%s", shape.lines())
          .isEqualTo(shape.read().equals("valid") ? 200 : 401);
    }
  }
}
