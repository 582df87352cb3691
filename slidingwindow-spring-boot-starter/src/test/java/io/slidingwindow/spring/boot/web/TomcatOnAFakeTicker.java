package io.slidingwindow.spring.boot.web;

import io.slidingwindow.testkit.FakeTicker;
import org.springframework.boot.web.embedded.tomcat.TomcatServletWebServerFactory;
import org.springframework.context.annotation.Bean;

/**
 * Beans a test application imports to run on Tomcat, although other servers are on the test class
 * path too, with the starter's limiters on a fake ticker. Not a component: only the applications
 * that import it get these beans.
 */
class TomcatOnAFakeTicker {

  @Bean
  TomcatServletWebServerFactory tomcat() {
    return new TomcatServletWebServerFactory();
  }

  @Bean
  FakeTicker ticker() {
    return new FakeTicker(3_000_000_000L);
  }
}
