package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.spring.RateLimit;
import org.junit.jupiter.api.Test;

/**
 * {@code countOn} on Spring's {@code ListenableFuture}, which Spring Framework 7 removed: this test
 * runs on the Spring 6 line only (the Boot 4 module compiles the other tests of this module, not
 * this one).
 */
class ListenableFutureCountOnTest {

  /** countOn on Spring's ListenableFuture: its failures come after it returns. */
  @SuppressWarnings("removal")
  public static class ListenableLogin {
    @RateLimit(limits = "1/1h", countOn = Logins.BadPassword.class)
    public org.springframework.util.concurrent.ListenableFuture<String> call(String user) {
      return new org.springframework.util.concurrent.SettableListenableFuture<>();
    }
  }

  @Test
  void countOn_onAListenableFuture_stopsStartUpNamingTheBeanAndTheType() {
    assertThatThrownBy(() -> new MethodContexts().start(ListenableLogin.class).close())
        .rootCause()
        .hasMessageContaining("bean 'listenableLogin'")
        .hasMessageContaining(ListenableLogin.class.getName() + ".call(String")
        .hasMessageContaining("countOn cannot be applied")
        .hasMessageContaining("returns org.springframework.util.concurrent.ListenableFuture");
  }
}
