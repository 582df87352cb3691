package io.slidingwindow.spring.method;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.slidingwindow.spring.RateLimit;
import io.slidingwindow.spring.RateLimitExceededException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.aop.support.AopUtils;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.stereotype.Component;
import org.springframework.stereotype.Controller;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.service.annotation.GetExchange;

/**
 * {@code @RateLimit} on controllers: the request handlers are the web layer's, limited per request
 * and never counted by the interceptor; every other method (a GraphQL or messaging handler, a plain
 * method) is the interceptor's.
 */
class ControllerMethodsTest {

  private final MethodContexts contexts = new MethodContexts().classProxies();
  private final AnnotationConfigApplicationContext context =
      contexts.start(
          Pages.class, Api.class, HandlersOnly.class, Mapped.class, Inherited.class, Plain.class);

  @AfterEach
  void close() {
    context.close();
  }

  /** A controller with a plain limited method beside its handlers. */
  @Controller
  public static class Pages {
    @RateLimit(limits = "1/1h")
    public String render(String page) {
      return "page " + page;
    }

    @GetMapping("/pages")
    @RateLimit(limits = "1/1h", countStatuses = "400-599")
    public String pages() {
      return "pages";
    }

    @RequestMapping("/all")
    @RateLimit(limits = "1/1h")
    public String all() {
      return "all";
    }

    @GetExchange("/exchange")
    @RateLimit(limits = "1/1h")
    public String exchange() {
      return "exchange";
    }
  }

  /** A REST controller with a method that no mapping calls (a GraphQL query, say). */
  @RestController
  public static class Api {
    @RateLimit(limits = "1/1h", key = "#user")
    public String query(String user) {
      return "data for " + user;
    }
  }

  /** A controller whose only limited methods are handlers. */
  @RestController
  public static class HandlersOnly {
    @GetMapping("/only")
    @RateLimit(limits = "1/1h")
    public String only() {
      return "only";
    }
  }

  /** The mapping of a handler, declared on an interface. */
  public interface MappedApi {
    @GetMapping("/mapped")
    String mapped();
  }

  /** A controller whose handler's mapping comes from its interface. */
  @Controller
  public static class Mapped implements MappedApi {
    @Override
    @RateLimit(limits = "1/1h")
    public String mapped() {
      return "mapped";
    }

    @RateLimit(limits = "1/1h")
    public String helper() {
      return "helper";
    }
  }

  /** A controller by inheritance, with a plain method. */
  public static class Inherited extends Pages {
    @RateLimit(limits = "1/1h")
    public String other() {
      return "other";
    }
  }

  /** Not a controller: its mapping is never served, so the interceptor limits the method. */
  @Component
  public static class Plain {
    @GetMapping("/plain")
    @RateLimit(limits = "1/1h")
    public String plain() {
      return "plain";
    }
  }

  @Test
  void controller_methodWithoutMapping_secondCallRefused() {
    Pages pages = context.getBean("pages", Pages.class);

    assertThat(pages.render("a")).isEqualTo("page a");

    assertThatThrownBy(() -> pages.render("b"))
        .isInstanceOfSatisfying(
            RateLimitExceededException.class,
            refusal -> assertThat(refusal.rule()).isEqualTo("Pages.render"));
  }

  @Test
  void restController_methodWithoutMapping_secondCallOfTheKeyRefused() {
    Api api = context.getBean(Api.class);

    assertThat(api.query("ann")).isEqualTo("data for ann");

    assertThatThrownBy(() -> api.query("ann")).isInstanceOf(RateLimitExceededException.class);
    assertThat(api.query("bob")).isEqualTo("data for bob");
  }

  @Test
  void controller_handlerMethods_neverCountedByTheInterceptor() {
    Pages pages = context.getBean("pages", Pages.class);
    Mapped mapped = context.getBean(Mapped.class);

    for (int i = 0; i < 3; i++) {
      assertThat(pages.pages()).isEqualTo("pages");
      assertThat(pages.all()).isEqualTo("all");
      assertThat(pages.exchange()).isEqualTo("exchange");
      assertThat(mapped.mapped()).isEqualTo("mapped");
    }
    assertThat(contexts.events).isEmpty();
    mapped.helper();
    assertThatThrownBy(mapped::helper).isInstanceOf(RateLimitExceededException.class);
  }

  @Test
  void controller_onlyHandlersLimited_isNotProxied() {
    HandlersOnly handlers = context.getBean(HandlersOnly.class);

    assertThat(AopUtils.isAopProxy(handlers)).isFalse();
    assertThat(AopUtils.isAopProxy(context.getBean("pages"))).isTrue();
    handlers.only();
    assertThat(handlers.only()).isEqualTo("only");
  }

  @Test
  void subclassOfAController_plainMethodLimited_handlersNot() {
    Inherited inherited = context.getBean(Inherited.class);

    inherited.other();
    assertThatThrownBy(inherited::other).isInstanceOf(RateLimitExceededException.class);
    inherited.pages();
    assertThat(inherited.pages()).isEqualTo("pages");
  }

  @Test
  void controllerWithAnInterface_interfaceProxiesConfigured_getsAClassProxy() {
    try (AnnotationConfigApplicationContext started = new MethodContexts().start(Mapped.class)) {
      Mapped mapped = started.getBean(Mapped.class);

      assertThat(AopUtils.isCglibProxy(mapped)).isTrue();
      mapped.helper();
      assertThatThrownBy(mapped::helper).isInstanceOf(RateLimitExceededException.class);
    }
  }

  @Test
  void notAController_methodWithMapping_stillLimitedByTheInterceptor() {
    Plain plain = context.getBean(Plain.class);

    plain.plain();

    assertThatThrownBy(plain::plain).isInstanceOf(RateLimitExceededException.class);
  }
}
