package io.slidingwindow.spring.boot.web;

import static io.slidingwindow.spring.boot.web.FilterDispatcherTypesHttpTest.statuses;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;

/**
 * The application of {@link FilterDispatcherTypesHttpTest} with the starter's default, the filter
 * registered for request dispatches alone: it never sees an error page or a forward, so the error
 * page at {@code /login} that a filter before it sends to runs on every such request, unlimited,
 * and a forward to {@code /fwd/target} is not counted by the rule over it. What {@code
 * filter-dispatcher-types} with ERROR and FORWARD is for. On a real Tomcat with a real HTTP client.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = FilterDispatcherTypesHttpTest.App.class,
    properties = {
      "spring.main.web-application-type=servlet",
      "server.address=127.0.0.1",
      "slidingwindow.http.rules.login.paths=/login",
      "slidingwindow.http.rules.login.key=global",
      "slidingwindow.http.rules.login.limits[0].permits=1",
      "slidingwindow.http.rules.login.limits[0].window=1m",
      "slidingwindow.http.rules.err.paths=/err/**",
      "slidingwindow.http.rules.err.key=global",
      "slidingwindow.http.rules.err.limits[0].permits=3",
      "slidingwindow.http.rules.err.limits[0].window=1m",
      "slidingwindow.http.rules.fwd.paths=/fwd/**",
      "slidingwindow.http.rules.fwd.key=global",
      "slidingwindow.http.rules.fwd.limits[0].permits=3",
      "slidingwindow.http.rules.fwd.limits[0].window=1m",
      "slidingwindow.http.rules.target.paths=/fwd/target",
      "slidingwindow.http.rules.target.key=global",
      "slidingwindow.http.rules.target.limits[0].permits=2",
      "slidingwindow.http.rules.target.limits[0].window=1m"
    })
class FilterRequestDispatchesHttpTest {

  @LocalServerPort int port;

  @Autowired FilterDispatcherTypesHttpTest.App.Runs runs;

  @Test
  void errorPageAFilterBeforeSendsTo_isNotSeen_andRunsUnlimited() throws Exception {
    assertThat(LoopbackHttp.get(port, "/login").statusCode()).isEqualTo(200);

    assertThat(statuses(port, "/private/{i}", 3)).containsExactly(401, 401, 401);
    assertThat(runs.of("login")).as("the login page, under a rule of 1 a minute").isEqualTo(4);
  }

  @Test
  void errorPageOfACountedRequest_isNotCountedAgain() throws Exception {
    assertThat(statuses(port, "/err/boom", 4)).containsExactly(500, 500, 500, 429);
    assertThat(runs.of("oops")).isEqualTo(3);
  }

  @Test
  void forward_isNotCountedByTheRuleOverItsTarget() throws Exception {
    assertThat(statuses(port, "/fwd/go", 4)).containsExactly(200, 200, 200, 429);
    assertThat(runs.of("target")).as("under a rule of 2 a minute").isEqualTo(3);
  }
}
