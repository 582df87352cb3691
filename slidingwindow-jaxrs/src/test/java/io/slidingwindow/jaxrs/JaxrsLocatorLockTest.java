package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Counting a request that ended in a sub-resource locator takes no lock of the feature, on Jersey
 * and RESTEasy: while another thread holds the feature's monitor, a flood of failed lookups is
 * still answered. Before, each such request took that lock once per limited method.
 */
class JaxrsLocatorLockTest extends JaxrsServerCase {

  private final RateLimitFeature feature = feature();

  /** A locator declared to return the limited class. */
  @Path("shares")
  public static class Shares {
    @Path("{token}")
    public LimitedShare share(@PathParam("token") String token) {
      return LimitedShare.lookUp(token);
    }
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void countingAFailedLookup_takesNoLockOfTheFeature(JaxrsServers.Implementation runtime)
      throws Exception {
    server = JaxrsServers.start(runtime, List.of(new Shares(), feature));
    assertThat(status("/shares/issued-1")).as("builds the method's filter").isEqualTo(200);

    List<Integer> answers;
    synchronized (feature) {
      answers =
          CompletableFuture.supplyAsync(
                  () -> List.of(status("/shares/guess1"), status("/shares/guess2")))
              .get(10, TimeUnit.SECONDS);
    }

    assertThat(answers).containsExactly(404, 404);
    assertThat(status("/shares/issued-1")).as("the guesses were counted: 3/1h used").isEqualTo(429);
  }
}
