package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.LogCapture;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A class that a locator declared to return {@code Object} (or an interface the class implements)
 * hands over is checked only when the runtime first configures its methods, at the first request
 * that reaches it, on Jersey and RESTEasy: a bad {@code @RateLimit} there answers every request to
 * it with one stable 500 that names nothing, and is logged once, naming the method and what to do;
 * the rest of the application serves on, and a good annotation behind such a locator limits.
 */
class JaxrsObjectLocatorTest extends JaxrsServerCase {

  private LogCapture logged;

  @BeforeEach
  void record() {
    logged = LogCapture.atConfiguredLevel("");
  }

  @AfterEach
  void stop() {
    logged.close();
  }

  /** Locates through {@code Object}, which the start-up check cannot follow. */
  @Path("depot")
  public static class Depot {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String get() {
      return "depot";
    }

    @Path("crate")
    public Object crate() {
      return new Crate();
    }

    @Path("box")
    public Object box() {
      return new Box();
    }

    @Path("bin")
    public Object bin() {
      return new Bin();
    }

    @Path("lid")
    public Lid lid() {
      return new Crate();
    }
  }

  /** What {@link Depot#lid} is declared to return, which {@link Crate} implements. */
  public interface Lid {}

  /** An annotation on a plain method, which would limit nothing. */
  public static class Crate implements Lid {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String open() {
      return "crate";
    }

    @RateLimit(limits = "1/1h")
    public String weigh() {
      return "heavy";
    }
  }

  /** A limit that cannot be read. */
  public static class Box {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "two per hour")
    public String open() {
      return "box";
    }
  }

  /** A good limit. */
  public static class Bin {
    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "1/1h")
    public String open() {
      return "bin";
    }
  }

  private void start(JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new Depot(), feature()));
    logged.clear();
  }

  private List<HttpResponse<String>> get(String path, int times) {
    return Stream.generate(() -> Http.get(server.uri(path))).limit(times).toList();
  }

  /** What this module logged. */
  private List<LogRecord> ours() {
    return logged.records().stream()
        .filter(r -> r.getLoggerName().equals(RateLimitFeature.class.getName()))
        .toList();
  }

  private void assertStableServerErrors(List<HttpResponse<String>> answers) {
    assertThat(answers).extracting(HttpResponse::statusCode).containsOnly(500);
    assertThat(answers)
        .extracting(HttpResponse::body)
        .as("one answer, naming no class")
        .containsOnly(answers.get(0).body())
        .allSatisfy(body -> assertThat(body).doesNotContain("io.slidingwindow", "Exception"));
    assertThat(answers.get(0).headers().firstValue("Content-Type"))
        .hasValueSatisfying(type -> assertThat(type).startsWith("application/problem+json"));
    assertThat(logged.records())
        .as("records with a stack trace, by anyone")
        .filteredOn(r -> r.getThrown() != null)
        .isEmpty();
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void objectLocator_annotatedPlainMethod_stable500LoggedOnceNamingIt(
      JaxrsServers.Implementation runtime) {
    start(runtime);

    List<HttpResponse<String>> answers = get("/depot/crate", 3);

    assertStableServerErrors(answers);
    assertThat(ours()).as("what the feature logged").hasSize(1);
    LogRecord record = ours().get(0);
    assertThat(record.getLevel()).isEqualTo(Level.SEVERE);
    assertThat(record.getMessage())
        .contains("@RateLimit on " + Crate.class.getName() + ".weigh would limit nothing")
        .contains("500")
        .contains("declare the locator's return type");
    assertThat(Http.get(server.uri("/depot")).body()).isEqualTo("depot");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void interfaceLocator_annotatedPlainMethodOfTheClassServed_stable500LoggedOnce(
      JaxrsServers.Implementation runtime) {
    start(runtime);

    List<HttpResponse<String>> answers = get("/depot/lid", 3);

    assertStableServerErrors(answers);
    assertThat(ours()).as("what the feature logged").hasSize(1);
    assertThat(ours().get(0).getMessage())
        .contains("@RateLimit on " + Crate.class.getName() + ".weigh would limit nothing");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void objectLocator_unreadableLimit_stable500LoggedOnceNamingIt(
      JaxrsServers.Implementation runtime) {
    start(runtime);

    List<HttpResponse<String>> answers = get("/depot/box", 3);

    assertStableServerErrors(answers);
    assertThat(ours()).as("what the feature logged").hasSize(1);
    assertThat(ours().get(0).getMessage())
        .contains("@RateLimit on " + Box.class.getName() + ".open: ")
        .contains("two per hour")
        .contains("declare the locator's return type");
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void objectLocator_goodLimit_limits(JaxrsServers.Implementation runtime) {
    start(runtime);

    List<HttpResponse<String>> answers = get("/depot/bin", 2);

    assertThat(answers).extracting(HttpResponse::statusCode).containsExactly(200, 429);
    assertThat(ours()).isEmpty();
  }
}
