package io.slidingwindow.webmvc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RefusalReplies;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.webmvc.internal.RateLimitInterceptors;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.web.method.HandlerMethod;

/**
 * {@link RateLimitInterceptor#builder()}: what an interceptor built with no setter does (that of
 * the former constructor with the in-memory backend, no listener, the peer address, no headers and
 * no dry-run), that each setter takes effect, that a null argument is refused naming the parameter,
 * and the starter's wiring through {@link RateLimitInterceptors}.
 */
class RateLimitInterceptorBuilderTest {

  /** Handlers, one request a minute each. */
  static final class Api {
    @RateLimit(limits = "1/1m")
    public void one() {}

    @RateLimit(limits = "1/1m", key = "bean:tenant")
    public void tenant() {}

    @RateLimit(limits = "1/1m", name = "taken")
    public void named() {}

    @RateLimit(limits = "nonsense")
    public void bad() {}

    public void free() {}
  }

  private static Method method(String name) throws NoSuchMethodException {
    return Api.class.getMethod(name);
  }

  private static MockHttpServletResponse call(
      RateLimitInterceptor interceptor, String method, String peer, String forwardedFor)
      throws Exception {
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api");
    request.setRemoteAddr(peer);
    if (forwardedFor != null) {
      request.addHeader("X-Forwarded-For", forwardedFor);
    }
    MockHttpServletResponse response = new MockHttpServletResponse();
    boolean go =
        interceptor.preHandle(request, response, new HandlerMethod(new Api(), method(method)));
    assertThat(go).as("went on").isEqualTo(response.getStatus() == 200);
    return response;
  }

  private static MockHttpServletResponse call(RateLimitInterceptor interceptor, String method)
      throws Exception {
    return call(interceptor, method, "192.0.2.1", null);
  }

  @Test
  void defaults_secondRequestOfOnePeer_refusedWith429ProblemAndNoQuotaHeaders() throws Exception {
    RateLimitInterceptor interceptor = RateLimitInterceptor.builder().build();

    MockHttpServletResponse first = call(interceptor, "one");
    MockHttpServletResponse second = call(interceptor, "one");
    MockHttpServletResponse otherPeer = call(interceptor, "one", "192.0.2.2", null);
    MockHttpServletResponse forwarded = call(interceptor, "one", "192.0.2.1", "198.51.100.7");

    assertThat(first.getStatus()).isEqualTo(200);
    assertThat(first.getHeader("RateLimit")).as("no quota headers by default").isNull();
    assertThat(second.getStatus()).isEqualTo(429);
    assertThat(second.getContentType()).startsWith(RefusalReplies.PROBLEM_JSON);
    assertThat(second.getHeader("Retry-After")).isNotNull();
    assertThat(otherPeer.getStatus()).as("keyed by the peer").isEqualTo(200);
    assertThat(forwarded.getStatus()).as("X-Forwarded-For not believed").isEqualTo(429);
    assertThat(call(interceptor, "free").getStatus()).isEqualTo(200);
  }

  @Test
  void limiterFactory_makesTheAnnotationsLimiter() throws Exception {
    List<String> made = new ArrayList<>();
    RateLimiterFactory inMemory = RateLimiterFactory.inMemory();
    RateLimitInterceptor interceptor =
        RateLimitInterceptor.builder()
            .limiterFactory(
                (name, limits, countRefused) -> {
                  made.add(name);
                  return inMemory.create(name, limits, countRefused);
                })
            .build();

    call(interceptor, "one");

    assertThat(made).containsExactly("Api.one");
  }

  @Test
  void listener_toldOfEachDecision() throws Exception {
    List<String> told = new ArrayList<>();
    RateLimitInterceptor interceptor =
        RateLimitInterceptor.builder()
            .listener(
                new RateLimitListener() {
                  @Override
                  public void onAllowed(
                      HttpRule rule, io.slidingwindow.Decision decision, String key) {
                    told.add("allowed " + rule.name());
                  }

                  @Override
                  public void onRefused(
                      HttpRule rule,
                      io.slidingwindow.Decision decision,
                      boolean dryRun,
                      String key) {
                    told.add("refused " + rule.name() + (dryRun ? " dry" : ""));
                  }
                })
            .build();

    call(interceptor, "one");
    call(interceptor, "one");

    assertThat(told).containsExactly("allowed Api.one", "refused Api.one");
  }

  @Test
  void clientIp_trustedProxy_keysByTheForwardedAddress() throws Exception {
    RateLimitInterceptor interceptor =
        RateLimitInterceptor.builder()
            .clientIp(ClientIpResolver.trusting(List.of("192.0.2.1/32")))
            .build();

    MockHttpServletResponse first = call(interceptor, "one", "192.0.2.1", "198.51.100.7");
    MockHttpServletResponse other = call(interceptor, "one", "192.0.2.1", "198.51.100.8");
    MockHttpServletResponse again = call(interceptor, "one", "192.0.2.1", "198.51.100.7");

    assertThat(first.getStatus()).isEqualTo(200);
    assertThat(other.getStatus()).as("another client behind the proxy").isEqualTo(200);
    assertThat(again.getStatus()).isEqualTo(429);
  }

  @Test
  void rateLimitHeaders_sentOnRequestsLetThrough() throws Exception {
    RateLimitInterceptor interceptor =
        RateLimitInterceptor.builder().rateLimitHeaders(true).build();

    MockHttpServletResponse first = call(interceptor, "one");

    assertThat(first.getHeader("RateLimit-Policy")).isNotNull();
    assertThat(first.getHeader("RateLimit")).isNotNull();
  }

  @Test
  void defaultDryRun_refusalLetThroughAndReportedAsDryRun() throws Exception {
    List<Boolean> dryRuns = new ArrayList<>();
    RateLimitInterceptor interceptor =
        RateLimitInterceptor.builder()
            .defaultDryRun(true)
            .listener(
                new RateLimitListener() {
                  @Override
                  public void onRefused(
                      HttpRule rule, io.slidingwindow.Decision decision, boolean dryRun) {
                    dryRuns.add(dryRun);
                  }
                })
            .build();

    call(interceptor, "one");
    MockHttpServletResponse second = call(interceptor, "one");

    assertThat(second.getStatus()).isEqualTo(200);
    assertThat(dryRuns).containsExactly(true);
  }

  @Test
  void keyResolverBeans_serveBeanKeys() throws Exception {
    RateLimitInterceptor without = RateLimitInterceptor.builder().build();
    RateLimitInterceptor with =
        RateLimitInterceptor.builder()
            .keyResolverBeans(
                Map.<String, KeyResolver>of("tenant", request -> request.getHeader("X-Tenant"))
                    ::get)
            .build();

    assertThatThrownBy(() -> call(without, "tenant"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("names no KeyResolver bean");
    HandlerMethod handler = new HandlerMethod(new Api(), method("tenant"));
    // A fresh request each time: the interceptor counts a request by a rule once.
    assertThat(with.preHandle(tenant("a"), new MockHttpServletResponse(), handler)).isTrue();
    assertThat(with.preHandle(tenant("a"), new MockHttpServletResponse(), handler)).isFalse();
    assertThat(with.preHandle(tenant("b"), new MockHttpServletResponse(), handler))
        .as("another tenant, same address")
        .isTrue();
  }

  private static MockHttpServletRequest tenant(String tenant) {
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/api");
    request.addHeader("X-Tenant", tenant);
    return request;
  }

  @Test
  void refusal_answersRefusedRequests() throws Exception {
    RateLimitInterceptor interceptor =
        RateLimitInterceptor.builder()
            .refusal(new RefusalReplies.Refusal(503, "text/plain", "busy"))
            .build();

    call(interceptor, "one");
    MockHttpServletResponse second = call(interceptor, "one");

    assertThat(second.getStatus()).isEqualTo(503);
    assertThat(second.getContentAsString()).isEqualTo("busy");
  }

  @Test
  void nullArguments_refusedNamingTheParameter() {
    RateLimitInterceptor.Builder builder = RateLimitInterceptor.builder();
    Map<String, Consumer<RateLimitInterceptor.Builder>> setters =
        Map.of(
            "limiterFactory", b -> b.limiterFactory(null),
            "listener", b -> b.listener(null),
            "clientIp", b -> b.clientIp(null),
            "keyResolverBeans", b -> b.keyResolverBeans(null),
            "refusal", b -> b.refusal(null));

    setters.forEach(
        (name, setter) ->
            assertThatThrownBy(() -> setter.accept(builder))
                .as(name)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(name + " must not be null"));
    assertThat(builder.build()).as("the builder still builds").isNotNull();
  }

  @Test
  void wiring_registerReserveAndCheckRuleName_failAtStartUp() throws Exception {
    RateLimitInterceptor interceptor = RateLimitInterceptor.builder().build();

    assertThatThrownBy(() -> RateLimitInterceptors.register(interceptor, method("bad")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Api.bad");
    RateLimitInterceptors.register(interceptor, method("free"));
    RateLimitInterceptors.register(interceptor, method("one"));
    assertThatThrownBy(() -> RateLimitInterceptors.reserve(interceptor, "Api.one", "rule Api.one"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rule Api.one");
    RateLimitInterceptors.reserve(interceptor, "taken", "rule taken");
    assertThatThrownBy(() -> RateLimitInterceptors.register(interceptor, method("named")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("rule taken");
    assertThatThrownBy(() -> RateLimitInterceptors.checkRuleName(interceptor, "Api.one"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Api.one");
    RateLimitInterceptors.checkRuleName(interceptor, "unused");
  }
}
