package io.slidingwindow.webmvc.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.KeyRejectedException;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.web.servlet.HandlerMapping;

class KeyLanguageTest {

  private static final String WHERE = "slidingwindow.http.rules.r.key";

  private static KeyResolver noBean(String name) {
    return null;
  }

  private final ClientIpResolver clientIp = ClientIpResolver.trusting(List.of("127.0.0.1"));

  private KeyResolver parse(String key) {
    return ServletKeys.resolver(WHERE, key, clientIp, KeyLanguageTest::noBean);
  }

  private static MockHttpServletRequest request(String... headers) {
    MockHttpServletRequest request = new MockHttpServletRequest("GET", "/orders/7");
    request.setRemoteAddr("127.0.0.1");
    for (int i = 0; i + 1 < headers.length; i += 2) {
      request.addHeader(headers[i], headers[i + 1]);
    }
    request.setAttribute(
        HandlerMapping.URI_TEMPLATE_VARIABLES_ATTRIBUTE, Map.of("id", "198.51.100.1"));
    return request;
  }

  @Test
  void resolver_shorthandsAndTheirExpressions_giveTheSameKeys() {
    List<MockHttpServletRequest> requests =
        List.of(
            request(),
            request("X-Api-Key", "k1"),
            request("X-Api-Key", " "),
            request("X-Forwarded-For", "2001:db8::1"),
            request("X-Forwarded-For", "::ffff:198.51.100.1", "X-Api-Key", "198.51.100.1"));
    MockHttpServletRequest user = request();
    user.setUserPrincipal(() -> "alice");
    for (MockHttpServletRequest r : requests) {
      assertThat(parse("ip").key(r)).isEqualTo(parse("clientIp").key(r));
      assertThat(parse("header:X-Api-Key").key(r))
          .isEqualTo(parse("header('X-Api-Key') ?: clientIp").key(r));
      assertThat(parse("principal").key(r)).isEqualTo(parse("principal ?: #clientIp").key(r));
      assertThat(parse("global").key(r)).isEqualTo(parse("global").key(user));
    }
    assertThat(parse("principal").key(user)).isEqualTo(parse("principal ?: clientIp").key(user));
    assertThat(parse("principal").key(user).value()).isEqualTo("principal:alice");
  }

  @Test
  void resolver_expressionResults_keepTheirSourceApart() {
    MockHttpServletRequest forged = request("X-Api-Key", "127.0.0.1");
    RequestKey address = parse("clientIp").key(request());
    assertThat(address.value()).isEqualTo("ip:127.0.0.1");
    assertThat(parse("header('X-Api-Key') ?: clientIp").key(forged)).isNotEqualTo(address);
    // Plain text, whatever it spells, is application text: never the address key.
    assertThat(parse("headerValue('X-Api-Key')").key(forged).value()).isEqualTo("custom:127.0.0.1");
    assertThat(parse("'ip:' + headerValue('X-Api-Key')").key(forged)).isNotEqualTo(address);
    assertThat(parse("'ip:127.0.0.1'").key(forged).value()).isEqualTo("custom:ip%3A127.0.0.1");
    assertThat(parse("#request.remoteAddr").key(forged)).isNotEqualTo(address);
    // A path variable beside the address is a tuple; the same text alone is another key.
    assertThat(parse("key(pathVariables['id'], clientIp)").key(forged).value())
        .isEqualTo("(custom:198.51.100.1|ip:127.0.0.1)");
    assertThat(parse("pathVariables['id']").key(forged))
        .isNotEqualTo(parse("clientIp").key(request("X-Forwarded-For", "198.51.100.1")));
    assertThat(parse("header('X-None')").key(forged)).isNull();
    assertThat(parse("key(header('X-None'), clientIp)").key(forged)).isNull();
  }

  @Test
  void resolver_unknownNames_failNamingTheKeyAndTheName() {
    assertThatThrownBy(() -> parse("cookie"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            WHERE
                + " must be ip, principal, global, header:NAME, bean:NAME or a key expression,"
                + " was 'cookie': 'cookie' is not one of");
    assertThatThrownBy(() -> parse("header('a') ?: clientIP"))
        .hasMessageContaining("'clientIP' is not one of");
    assertThatThrownBy(() -> parse("cookie('session')")).hasMessageContaining("'cookie(...)'");
    assertThatThrownBy(() -> parse("key(#tenant)")).hasMessageContaining("'#tenant'");
    assertThatThrownBy(() -> parse("header(")).hasMessageContaining("was 'header('");
    assertThatThrownBy(() -> parse("header: "))
        .hasMessageContaining("header:NAME needs a header name");
    assertThatThrownBy(() -> parse("  ")).hasMessageContaining("was '  '");
    assertThatThrownBy(() -> parse("bean:missing"))
        .hasMessage(WHERE + " names no KeyResolver bean, was 'bean:missing'");
    // Names after a dot belong to the value before them, not to the root.
    assertThat(parse("headerValue('X-A').trim()").key(request("X-A", " a ")).value())
        .isEqualTo("custom:a");
    assertThat(parse("headerValue('X-A')?.length()").key(request())).isNull();
  }

  /** Expressions read data and call the root's methods and pure methods of text, nothing else. */
  @Test
  void resolver_methodsOtherThanTheRootsAndTexts_failAtStartUp() {
    assertThatThrownBy(() -> parse("#request.getHeader('X-A')"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'getHeader(...)' is not a method expressions may call");
    assertThatThrownBy(() -> parse("request.getSession(true).id"))
        .hasMessageContaining("'getSession(...)'");
    assertThatThrownBy(() -> parse("clientIp.value().getClass()"))
        .hasMessageContaining("'value(...)'");
    assertThatThrownBy(() -> parse("T(java.lang.Runtime).getRuntime()"))
        .hasMessageContaining("no type, constructor or bean references");
    assertThatThrownBy(() -> parse("new java.io.File('x')"))
        .hasMessageContaining("no type, constructor or bean references");
  }

  /** Properties with side effects, name lookups or class access are not read, even if named. */
  @Test
  void resolver_propertiesOutsideTheAllowedOnes_failWhenRead() {
    MockHttpServletRequest plain = request();
    assertThat(parse("request.requestURI").key(plain).value()).isEqualTo("custom:/orders/7");
    assertThat(parse("request.remoteAddr").key(plain).value()).isEqualTo("custom:127.0.0.1");
    for (String forbidden :
        List.of(
            "request.session",
            "request.inputStream",
            "request.remoteHost",
            "request.servletContext",
            "request.class",
            "clientIp.class",
            "path.bytes")) {
      assertThatThrownBy(() -> parse(forbidden).key(request()))
          .as(forbidden)
          .isInstanceOf(RuntimeException.class);
    }
    assertThat(plain.getSession(false)).as("no session was created").isNull();
  }

  /**
   * A result whose {@code toString} is {@code Object}'s would give every request a key of its own:
   * it is rejected, so that the request counts under its client's address.
   */
  @Test
  void resolver_resultWithObjectsToString_rejectedNamingItsClass() {
    Principal principal =
        new Principal() {
          @Override
          public String getName() {
            return "alice";
          }
        };
    MockHttpServletRequest signedIn = request();
    signedIn.setUserPrincipal(principal);

    assertThatThrownBy(() -> parse("request.userPrincipal").key(signedIn))
        .isInstanceOf(KeyRejectedException.class)
        .hasMessageContaining(principal.getClass().getName())
        .hasMessageContaining("key on one of its fields");
    assertThatThrownBy(() -> parse("key(request.userPrincipal, clientIp)").key(signedIn))
        .isInstanceOf(KeyRejectedException.class);
    assertThat(parse("request.userPrincipal.name").key(signedIn).value()).isEqualTo("custom:alice");
    assertThat(parse("{headerValue('X-A'), clientIp}").key(request("X-A", "a")).value())
        .isEqualTo("(custom:a|ip:127.0.0.1)");
  }
}
