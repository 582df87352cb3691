package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.http.RawHttp;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Guesses against a locator spelled every way a client controls, sent byte for byte: encoded
 * slashes, matrix parameters, a trailing slash, percent-encoded characters, other HTTP methods,
 * content negotiation that fails. Each that ran the locator's lookup is counted by its class's
 * 3/1h, so that after three an issued share is refused; one that never ran it counts nothing.
 * Before, RESTEasy ran the locator for {@code guess%2F1} (one segment, as sent) while the templates
 * were matched against the decoded {@code guess/1}, which {@code {token}} does not take: such
 * guesses were free.
 */
class JaxrsLocatorSpellingTest extends JaxrsServerCase {

  private final Shares shares = new Shares();

  /** Looks a share up by its token, counting each lookup. */
  @Path("shares")
  public static class Shares {
    final AtomicInteger lookups = new AtomicInteger();

    @Path("{token}")
    public LimitedShare share(@PathParam("token") String token) {
      lookups.incrementAndGet();
      return LimitedShare.lookUp(token);
    }
  }

  /** A guess's method, target below {@code /app} and headers (name, value). */
  private static final List<List<String>> GUESSES =
      List.of(
          List.of("GET", "/shares/guess%2F1"),
          List.of("GET", "/shares/guess%2f1"),
          List.of("GET", "/shares/guess;x=1"),
          List.of("GET", "/shares;x=1/guess"),
          List.of("GET", "/shares/guess/"),
          List.of("GET", "/shares/%67uess"),
          List.of("GET", "/shares/guess%3Bx"),
          List.of("GET", "/shares/guess%252F1"),
          List.of("GET", "/shares//guess"),
          List.of("GET", "/Shares/guess"),
          List.of("GET", "/shares/issued-1/."),
          List.of("HEAD", "/shares/guess"),
          List.of("OPTIONS", "/shares/guess"),
          List.of("PATCH", "/shares/issued-1"),
          List.of("FOO", "/shares/issued-1"),
          List.of("GET", "/shares/issued-1", "Accept", "image/png"),
          List.of("HEAD", "/shares/issued-1", "Accept", "image/png"),
          List.of("POST", "/shares/issued-1", "Content-Type", "image/png"));

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void guessSpelledAnyWay_countedWheneverItRanTheLocator(JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(shares, feature()));

    List<String> walkedAround = new ArrayList<>();
    for (List<String> guess : GUESSES) {
      int before = shares.lookups.get();
      List<Integer> statuses = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        statuses.add(
            RawHttp.send(
                    InetAddress.getLoopbackAddress(),
                    server.port(),
                    guess.get(0),
                    "/app" + guess.get(1),
                    guess.subList(2, guess.size()))
                .status());
      }
      boolean ran = shares.lookups.get() > before;
      int issued = RawHttp.get(server.port(), "/app/shares/issued-1").status();
      if (issued != (ran ? 429 : 200)) {
        walkedAround.add(
            guess + " " + statuses + (ran ? " ran the locator" : "") + ", then " + issued);
      }
      ticker.advance(Duration.ofHours(2));
    }
    assertThat(walkedAround).as("guesses counted other than as they ran the locator").isEmpty();
  }
}
