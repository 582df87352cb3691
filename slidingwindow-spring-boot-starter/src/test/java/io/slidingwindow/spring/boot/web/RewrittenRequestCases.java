package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.testkit.http.RawHttp;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.TestPropertySource;

/**
 * The cases that {@link MvcRewrittenRequestTest} and {@link WebFluxRewrittenRulesTest} run on their
 * stacks, with these rules: each application has a method override ({@code _method} or {@code
 * X-HTTP-Method-Override} turning a {@code POST} into what they name) and a rewrite serving {@code
 * /old/x} as {@code /docs/x} without a trailing slash, both after the rate limit filter; handlers
 * for {@code DELETE /items/{id}} and {@code /watched/{id}} (counted in {@link #deletesServed}),
 * {@code GET /docs/{id}}, and {@code DELETE /fails/{id}} (400 for ids starting with {@code bad});
 * and a listener that writes each refusal as {@code name:dryRun} to {@link #refused}. Each test is
 * another client address.
 */
@TestPropertySource(
    properties = {
      "slidingwindow.http.rate-limit-headers=true",
      "slidingwindow.http.rules.deletes.paths=/items/**",
      "slidingwindow.http.rules.deletes.methods=DELETE",
      "slidingwindow.http.rules.deletes.limits[0].permits=1",
      "slidingwindow.http.rules.deletes.limits[0].window=1h",
      "slidingwindow.http.rules.docs.paths=/docs/**",
      "slidingwindow.http.rules.docs.methods=GET",
      "slidingwindow.http.rules.docs.limits[0].permits=2",
      "slidingwindow.http.rules.docs.limits[0].window=1h",
      "slidingwindow.http.rules.failed-deletes.paths=/fails/**",
      "slidingwindow.http.rules.failed-deletes.methods=DELETE",
      "slidingwindow.http.rules.failed-deletes.count-statuses=400-599",
      "slidingwindow.http.rules.failed-deletes.limits[0].permits=1",
      "slidingwindow.http.rules.failed-deletes.limits[0].window=1h",
      "slidingwindow.http.rules.watched-deletes.paths=/watched/**",
      "slidingwindow.http.rules.watched-deletes.methods=DELETE",
      "slidingwindow.http.rules.watched-deletes.dry-run=true",
      "slidingwindow.http.rules.watched-deletes.limits[0].permits=1",
      "slidingwindow.http.rules.watched-deletes.limits[0].window=1h"
    })
abstract class RewrittenRequestCases {

  @LocalServerPort int port;

  /** How many requests the {@code DELETE} handlers of items and watched items served. */
  abstract AtomicInteger deletesServed();

  /** The rules' refusals, as {@code name:dryRun}. */
  abstract Queue<String> refused();

  RawHttp.Response send(String client, String method, String target, String... headers) {
    try {
      List<String> all = new ArrayList<>(List.of("Content-Length", "0"));
      all.addAll(List.of(headers));
      return RawHttp.send(InetAddress.getByName(client), port, method, target, all);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void methodOverrideByParameter_isCountedByTheDeleteRule() {
    int served = deletesServed().get();
    assertThat(send("127.0.0.11", "POST", "/items/1?_method=DELETE").status()).isEqualTo(200);
    assertThat(deletesServed().get())
        .as("the override reached the DELETE handler")
        .isEqualTo(served + 1);

    RawHttp.Response second = send("127.0.0.11", "POST", "/items/1?_method=DELETE");

    assertThat(second.status())
        .as("the second DELETE by override from one client, over the rule's 1 an hour")
        .isEqualTo(429);
    assertThat(second.isProblemJson()).isTrue();
    assertThat(second.header("Retry-After")).isNotNull();
    assertThat(second.header("RateLimit-Policy")).contains("\"deletes\"");
    assertThat(deletesServed().get())
        .as("the refused request reached no handler")
        .isEqualTo(served + 1);
    assertThat(refused()).contains("deletes:false");
    // Another client has its own allowance.
    assertThat(send("127.0.0.21", "POST", "/items/1?_method=DELETE").status()).isEqualTo(200);
  }

  @Test
  void methodOverrideByHeader_sharesTheAllowanceOfPlainDeletes() {
    assertThat(send("127.0.0.12", "DELETE", "/items/2").status()).isEqualTo(200);

    RawHttp.Response overridden =
        send("127.0.0.12", "POST", "/items/2", "X-HTTP-Method-Override", "DELETE");

    assertThat(overridden.status()).isEqualTo(429);
  }

  @Test
  void pathRewrite_isCountedByTheRuleOfTheServedPath() {
    assertThat(send("127.0.0.13", "GET", "/old/a").status()).isEqualTo(200);
    RawHttp.Response second = send("127.0.0.13", "GET", "/old/a");
    assertThat(second.status()).isEqualTo(200);
    assertThat(second.header("RateLimit"))
        .as("the handler's look adds the headers")
        .contains("\"docs\"");

    assertThat(send("127.0.0.13", "GET", "/old/a").status())
        .as("the third /old/a, served as /docs/a, over the rule's 2 an hour")
        .isEqualTo(429);
    assertThat(send("127.0.0.13", "GET", "/docs/a").status()).isEqualTo(429);
  }

  @Test
  void requestCountedByTheFilter_isNotCountedAgainAtTheHandler() {
    // Unchanged, and changed in a way that keeps the rule applying (the trailing slash taken off).
    assertThat(send("127.0.0.14", "GET", "/docs/b").status()).isEqualTo(200);
    assertThat(send("127.0.0.14", "GET", "/docs/b/").status())
        .as("the filter counted /docs/b/ once, and the handler's look not again")
        .isEqualTo(200);
    assertThat(send("127.0.0.14", "GET", "/docs/b/").status()).isEqualTo(429);

    assertThat(send("127.0.0.15", "GET", "/docs/c").status()).isEqualTo(200);
    assertThat(send("127.0.0.15", "GET", "/docs/c").status()).isEqualTo(200);
    assertThat(send("127.0.0.15", "GET", "/docs/c").status()).isEqualTo(429);
  }

  @Test
  void countStatusesRule_settlesTheOverriddenRequestWithItsAnswer() {
    assertThat(send("127.0.0.16", "POST", "/fails/ok1?_method=DELETE").status()).isEqualTo(200);
    assertThat(send("127.0.0.16", "POST", "/fails/ok2?_method=DELETE").status())
        .as("the 200 before was given back")
        .isEqualTo(200);
    assertThat(send("127.0.0.16", "POST", "/fails/bad1?_method=DELETE").status()).isEqualTo(400);

    assertThat(send("127.0.0.16", "POST", "/fails/ok3?_method=DELETE").status())
        .as("the 400 counted, and the rule's 1 an hour is spent")
        .isEqualTo(429);
  }

  @Test
  void dryRunRule_reportsTheOverriddenRequestAndLetsItThrough() {
    int served = deletesServed().get();
    assertThat(send("127.0.0.17", "POST", "/watched/1?_method=DELETE").status()).isEqualTo(200);
    assertThat(send("127.0.0.17", "POST", "/watched/1?_method=DELETE").status()).isEqualTo(200);

    assertThat(deletesServed().get()).isEqualTo(served + 2);
    assertThat(refused()).contains("watched-deletes:true");
  }
}
