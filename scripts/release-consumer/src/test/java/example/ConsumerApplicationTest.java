package example;

import static org.assertj.core.api.Assertions.assertThat;

import io.slidingwindow.Limit;
import io.slidingwindow.RateLimiter;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.client.TestRestTemplate;

/** The staged starter limits the endpoint, and core works on its own. */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ConsumerApplicationTest {

  @Autowired TestRestTemplate http;

  @Test
  void sixthRequestInTenSeconds_isRefused() {
    for (int i = 0; i < 5; i++) {
      assertThat(http.getForEntity("/hello", String.class).getStatusCode().value()).isEqualTo(200);
    }
    assertThat(http.getForEntity("/hello", String.class).getStatusCode().value()).isEqualTo(429);
  }

  @Test
  void coreLimiter_grantsItsLimitThenRefuses() {
    RateLimiter limiter = RateLimiter.builder().limit(Limit.parse("2/1m")).build();
    assertThat(limiter.tryAcquire()).isTrue();
    assertThat(limiter.tryAcquire()).isTrue();
    assertThat(limiter.tryAcquire()).isFalse();
  }
}
