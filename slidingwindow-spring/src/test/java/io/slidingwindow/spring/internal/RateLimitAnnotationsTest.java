package io.slidingwindow.spring.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.spring.RateLimit;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;

class RateLimitAnnotationsTest {

  static class Api {
    @RateLimit(limits = "1/1s", fallbackMethod = "later")
    public String call() {
      return "x";
    }
  }

  @Test
  void rule_handlerWithFallback_isRefusedNamingTheMethod() throws Exception {
    Method call = Api.class.getMethod("call");
    RateLimit annotation = call.getAnnotation(RateLimit.class);

    assertThatThrownBy(() -> new RateLimitAnnotations().rule(call, annotation, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Api.call()")
        .hasMessageContaining("fallbackMethod is for bean methods");
    assertThat(new RateLimitAnnotations().methodRule(call, call, annotation, false).name())
        .isEqualTo("Api.call");
  }
}
