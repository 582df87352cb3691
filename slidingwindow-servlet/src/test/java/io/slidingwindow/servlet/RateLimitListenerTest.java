package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Decision;
import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RateLimitListenerTest {

  private static final HttpRule PRODUCT =
      HttpRule.builder("product")
          .path("/v1/product/**")
          .limit(Limit.of(100, Duration.ofMinutes(1)))
          .build();

  /** Records the firewall's refusals and the rules' grants. */
  private static final class Recorder implements RateLimitListener {
    final List<String> rejected = new ArrayList<>();
    final List<String> allowed = new ArrayList<>();

    @Override
    public void onRejectedPath(String method, String requestUri, String reason) {
      rejected.add(method + " " + requestUri + " " + reason);
    }

    @Override
    public void onAllowed(HttpRule rule, Decision decision) {
      allowed.add(rule.name());
    }
  }

  @Test
  void enforce_pathTheFirewallRefuses_tellsOnRejectedPathAndNoRule() throws Exception {
    Recorder recorder = new Recorder();
    RateLimitEnforcer enforcer =
        RateLimitEnforcer.builder().rule(PRODUCT).listener(recorder).build();
    FakeHttp.Response response = new FakeHttp.Response();

    boolean goesOn =
        enforcer.enforce(FakeHttp.request("192.0.2.1", "/v1/product/..;/admin"), response.servlet);

    assertThat(goesOn).isFalse();
    assertThat(response.status).isEqualTo(400);
    assertThat(recorder.rejected)
        .containsExactly("GET /v1/product/..;/admin a path parameter (';')");
    assertThat(recorder.allowed).isEmpty();
  }

  @Test
  void enforce_canonicalPath_tellsNoRejection() throws Exception {
    Recorder recorder = new Recorder();
    RateLimitEnforcer enforcer =
        RateLimitEnforcer.builder().rule(PRODUCT).listener(recorder).build();

    enforcer.enforce(
        FakeHttp.request("192.0.2.1", "/v1/product/7"), new FakeHttp.Response().servlet);

    assertThat(recorder.rejected).isEmpty();
    assertThat(recorder.allowed).containsExactly("product");
  }

  @Test
  void enforce_listenerThrowsOnRejectedPath_stillAnswers400() throws Exception {
    RateLimitListener failing =
        new RateLimitListener() {
          @Override
          public void onRejectedPath(String method, String requestUri, String reason) {
            throw new IllegalStateException("listener down");
          }
        };
    RateLimitEnforcer enforcer =
        RateLimitEnforcer.builder().rule(PRODUCT).listener(failing).build();
    FakeHttp.Response response = new FakeHttp.Response();

    assertThat(enforcer.enforce(FakeHttp.request("192.0.2.1", "/v1//product"), response.servlet))
        .isFalse();
    assertThat(response.status).isEqualTo(400);
  }

  @Test
  void composite_onRejectedPath_tellsEveryListenerDespiteOneThrowing() {
    Recorder first = new Recorder();
    Recorder last = new Recorder();
    RateLimitListener failing =
        new RateLimitListener() {
          @Override
          public void onRejectedPath(String method, String requestUri, String reason) {
            throw new IllegalStateException("listener down");
          }
        };

    RateLimitListener.composite(List.of(first, failing, last)).onRejectedPath("GET", "/a", "why");

    assertThat(first.rejected).containsExactly("GET /a why");
    assertThat(last.rejected).containsExactly("GET /a why");
  }

  @Test
  void composite_immutableListOrNullElement_isAcceptedOrRefusedByName() {
    Recorder only = new Recorder();
    assertThat(RateLimitListener.composite(List.of(only))).isSameAs(only);
    List<RateLimitListener> withNull = new ArrayList<>();
    withNull.add(only);
    withNull.add(null);
    assertThatThrownBy(() -> RateLimitListener.composite(withNull))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("listeners");
  }
}
