package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.spring.boot.internal.PathRouter;
import io.slidingwindow.spring.boot.web.HandlerPaths.Mapping;
import io.slidingwindow.spring.boot.web.HandlerPaths.Served;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;

/** What the start-up check of the handler mappings says, for each kind of mapping and rule. */
class HandlerPathsTest {

  private static final Mapping SENSITIVE = new Mapping("requestMappingHandlerMapping", null, false);
  private static final Mapping IGNORING =
      new Mapping(
          "requestMappingHandlerMapping", "its PathPatternParser is not case-sensitive", false);
  private static final Mapping SUFFIXES = new Mapping("requestMappingHandlerMapping", null, true);

  private static HttpRule rule(String name, boolean ignoreCase, String... paths) {
    HttpRule.Builder builder =
        HttpRule.builder(name).ignoreCase(ignoreCase).limit(Limit.of(1, Duration.ofMinutes(1)));
    for (String path : paths) {
      builder.path(path);
    }
    return builder.build();
  }

  private static List<Served> served(HttpRule... rules) {
    return List.of(new Served("RateLimitEnforcer bean 'enforcer'", List.of(rules)));
  }

  @Test
  void check_caseSensitiveHandlers_saysNothing() {
    assertThat(HandlerPaths.check(List.of(SENSITIVE), served(rule("admin", false, "/v1/admin"))))
        .isEmpty();
    assertThat(HandlerPaths.check(List.of(), served(rule("admin", false, "/v1/admin")))).isEmpty();
  }

  @Test
  void check_handlersIgnoringCase_rulesIgnoringCase_saysSoOnce() {
    assertThat(
            HandlerPaths.check(
                List.of(IGNORING, new Mapping("routerFunctionMapping", "x", false)),
                served(rule("admin", true, "/v1/admin"), rule("all", false))))
        .hasValue(
            "slidingwindow: handler mapping 'requestMappingHandlerMapping' matches paths"
                + " regardless of case (its PathPatternParser is not case-sensitive), as do"
                + " [routerFunctionMapping], so the rules over paths [admin] match regardless of"
                + " case too.");
  }

  @Test
  void check_handlersIgnoringCase_noRulesOverPaths_saysNothing() {
    assertThat(HandlerPaths.check(List.of(IGNORING), served(rule("all", false)))).isEmpty();
    assertThat(HandlerPaths.check(List.of(IGNORING), List.of())).isEmpty();
  }

  @Test
  void check_handlersIgnoringCase_ruleInItsOwnCase_throwsNamingRuleAndFix() {
    assertThatThrownBy(
            () ->
                HandlerPaths.check(
                    List.of(IGNORING),
                    served(rule("admin", true, "/v1/admin"), rule("users", false, "/v1/users/**"))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage(
            "slidingwindow: handler mapping 'requestMappingHandlerMapping' matches paths"
                + " regardless of case (its PathPatternParser is not case-sensitive), so"
                + " /V1/USERS/** reaches the handler of /v1/users/**, but rule 'users' of the"
                + " RateLimitEnforcer bean 'enforcer' matches its paths [/v1/users/**] only in"
                + " their own case and would not count it. Build the rule with"
                + " HttpRule.builder(\"users\").ignoreCase(true), or let the handlers match paths"
                + " case-sensitively. If the rule is one of slidingwindow.http.rules, the starter"
                + " built it before the handler mappings could be read: a bean that the rate limit"
                + " filter needs is itself needed by the web configuration (a WebMvcConfigurer,"
                + " WebFluxConfigurer or HandlerInterceptor that injects RateLimitEnforcer);"
                + " inject ObjectProvider<RateLimitEnforcer> there instead.");
  }

  @Test
  void check_suffixes_withRulesOverPaths_throwsNamingTheSetting() {
    assertThatThrownBy(
            () ->
                HandlerPaths.check(
                    List.of(SUFFIXES),
                    served(rule("admin", true, "/v1/admin"), rule("all", false))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("uses suffix pattern matching")
        .hasMessageContaining("the rules [admin] would not count such requests")
        .hasMessageContaining("Turn suffix pattern matching off")
        .hasMessageContaining("@RateLimit");
  }

  @Test
  void check_suffixes_withoutRulesOverPaths_saysNothing() {
    assertThat(HandlerPaths.check(List.of(SUFFIXES), served(rule("all", false)))).isEmpty();
  }

  @Test
  void ignoreCase_readsTheMappingsEachTime() {
    List<List<Mapping>> answers = new java.util.ArrayList<>(List.of(List.of(IGNORING), List.of()));
    HandlerPaths paths = new HandlerPaths(() -> answers.remove(0), List::of);
    assertThat(paths.ignoreCase()).isTrue();
    assertThat(paths.ignoreCase()).isFalse();
  }

  @Test
  void ignoreCase_followsPathRouterBeans_eachTimeTheRulesAreBuilt() {
    DefaultListableBeanFactory beans = new DefaultListableBeanFactory();
    AtomicReference<String> why = new AtomicReference<>();
    beans.registerSingleton("gatewayPaths", (PathRouter) why::get);
    HandlerPaths reactive = new HandlerPaths(HandlerPaths.reactiveMappings(beans), List::of);
    HandlerPaths servlet = new HandlerPaths(HandlerPaths.servletMappings(beans), List::of);
    assertThat(reactive.ignoreCase()).isFalse();
    assertThat(servlet.ignoreCase()).isFalse();

    why.set("its Path predicates ignore case");

    assertThat(reactive.ignoreCase()).isTrue();
    assertThat(servlet.ignoreCase()).isTrue();
  }

  @Test
  void check_routerIgnoringCase_ruleInItsOwnCase_throwsNamingTheRouter() {
    Mapping router =
        new Mapping("router", "gatewayPaths", "its Path predicates ignore case", false);

    assertThatThrownBy(
            () ->
                HandlerPaths.check(
                    List.of(SENSITIVE, router), served(rule("login", false, "/api/login"))))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith(
            "slidingwindow: router 'gatewayPaths' matches paths regardless of case (its Path"
                + " predicates ignore case), so /API/LOGIN takes the route of /api/login, but"
                + " rule 'login'")
        .hasMessageContaining("or let the router match paths case-sensitively");
    assertThat(
            HandlerPaths.check(
                List.of(SENSITIVE, router), served(rule("login", true, "/api/login"))))
        .hasValue(
            "slidingwindow: router 'gatewayPaths' matches paths regardless of case (its Path"
                + " predicates ignore case), so the rules over paths [login] match regardless of"
                + " case too.");
  }
}
