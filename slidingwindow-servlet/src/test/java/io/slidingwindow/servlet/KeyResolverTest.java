package io.slidingwindow.servlet;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.http.RequestKey;
import org.junit.jupiter.api.Test;

class KeyResolverTest {

  @Test
  void keyResolver_plainTextResolver_isFiledAsCustomAndCannotReachBuiltInKeys() {
    KeyResolver forging = request -> "ip:" + request.getRemoteAddr();
    var request = FakeHttp.request("127.0.0.1", "/a");
    assertThat(forging.key(request).value()).isEqualTo("custom:ip%3A127.0.0.1");
    assertThat(forging.key(request))
        .isNotEqualTo(KeyResolver.clientIp(ClientIpResolver.direct()).key(request));
    KeyResolver none = r -> null;
    assertThat(none.key(request)).isNull();
  }

  @Test
  void keyResolver_builtIns_keyEachSourceApartAndFallBackToTheAddress() {
    ClientIpResolver direct = ClientIpResolver.direct();
    KeyResolver header = KeyResolver.header("X-Api-Key", direct);
    KeyResolver principal = KeyResolver.principal(direct);
    var anonymous = FakeHttp.request("127.0.0.1", "/a");
    var forged = FakeHttp.request("10.9.9.9", "/a", "X-Api-Key", "127.0.0.1");
    var user = FakeHttp.requestBy("127.0.0.1", "10.9.9.9", "/a");
    RequestKey address = KeyResolver.clientIp(direct).key(anonymous);
    assertThat(header.key(anonymous)).isEqualTo(address);
    assertThat(header.key(forged)).isNotEqualTo(address);
    assertThat(header.resolve(forged)).isEqualTo("header:x-api-key:127.0.0.1");
    assertThat(principal.key(anonymous)).isEqualTo(address);
    assertThat(principal.key(user)).isNotEqualTo(address);
    assertThat(principal.key(user).value()).isEqualTo("principal:127.0.0.1");
    assertThat(KeyResolver.global().key(forged)).isEqualTo(RequestKey.global());
    assertThat(KeyResolver.typed(r -> null).resolve(anonymous)).isNull();
  }
}
