package io.slidingwindow.spring.boot.dashboard;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextConfiguration;
import org.springframework.boot.actuate.autoconfigure.web.ManagementContextType;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnWebApplication;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.web.server.adapter.ForwardedHeaderTransformer;

/**
 * The guard of the {@code slidingwindow} endpoint's writes and reads against web pages ({@code
 * BrowserGuard}), in the context that serves the management endpoints: the application's own when
 * they share its port, else the management server's.
 */
@ManagementContextConfiguration(value = ManagementContextType.ANY, proxyBeanMethods = false)
@ConditionalOnAvailableEndpoint(endpoint = SlidingWindowEndpoint.class)
public class SlidingWindowEndpointManagementConfiguration {

  /** On a servlet server. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.SERVLET)
  @ConditionalOnClass(name = "jakarta.servlet.Filter")
  static class Servlet {
    @Bean
    BrowserGuardFilter slidingwindowEndpointBrowserGuard(Environment environment) {
      return new BrowserGuardFilter(BrowserGuard.of(environment));
    }
  }

  /** On a reactive server. */
  @Configuration(proxyBeanMethods = false)
  @ConditionalOnWebApplication(type = ConditionalOnWebApplication.Type.REACTIVE)
  @ConditionalOnClass(name = "org.springframework.web.server.WebFilter")
  static class Reactive {
    @Bean
    BrowserGuardWebFilter slidingwindowEndpointBrowserGuard(
        Environment environment, ObjectProvider<ForwardedHeaderTransformer> forwarded) {
      return new BrowserGuardWebFilter(
          BrowserGuard.of(environment), forwarded.getIfAvailable() != null);
    }
  }
}
