package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.glassfish.jersey.server.filter.HttpMethodOverrideFilter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The methods the runtime answers for a {@code @GET} method of its own accord: a {@code HEAD} runs
 * the method, and is counted by its rule; an {@code OPTIONS} the runtime answers itself runs
 * nothing of the application, and is not. A {@code POST} that Jersey's method override turns into a
 * {@code GET} runs the method too, and is counted by its rule.
 */
class JaxrsHeadOptionsTest extends JaxrsServerCase {

  /** One limited GET, recording its calls. */
  @Path("/")
  @Produces(MediaType.TEXT_PLAIN)
  public static class Page {
    final ConcurrentLinkedQueue<String> served = new ConcurrentLinkedQueue<>();

    @GET
    @Path("page")
    @RateLimit(limits = "2/1h", name = "page")
    public String page() {
      served.add("page");
      return "page";
    }
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void headCountedByTheGetMethodsRule_automaticOptionsNot(JaxrsServers.Implementation runtime) {
    Page page = new Page();
    server = JaxrsServers.start(runtime, List.of(page, feature()));

    List<Integer> options = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      options.add(Http.send("OPTIONS", server.uri("/page")).statusCode());
    }
    int head = Http.send("HEAD", server.uri("/page")).statusCode();
    int get = status("/page");
    int headOver = Http.send("HEAD", server.uri("/page")).statusCode();

    assertThat(options).as("answered by the runtime").allMatch(status -> status / 100 == 2);
    assertThat(List.of(head, get, headOver)).containsExactly(200, 200, 429);
    assertThat(page.served).as("HEAD ran the method").hasSize(2);
  }

  /**
   * Jersey's method override, registered by the application: a {@code POST} overridden to {@code
   * GET} (header or query) runs the {@code GET} method, and is counted by its rule.
   */
  @Test
  void methodOverrideToGet_countedByTheGetMethodsRule() {
    Page page = new Page();
    server =
        JaxrsServers.start(
            JaxrsServers.Implementation.JERSEY,
            List.of(
                page,
                new HttpMethodOverrideFilter(
                    HttpMethodOverrideFilter.Source.QUERY, HttpMethodOverrideFilter.Source.HEADER),
                feature()));

    int byHeader =
        Http.send("POST", server.uri("/page"), "X-HTTP-Method-Override", "GET").statusCode();
    int byQuery = Http.send("POST", server.uri("/page?_method=GET")).statusCode();
    int get = status("/page");

    assertThat(List.of(byHeader, byQuery, get)).containsExactly(200, 200, 429);
    assertThat(page.served).hasSize(2);
  }
}
