package io.slidingwindow.spring.method;

import java.lang.reflect.Method;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;
import java.util.concurrent.Future;
import org.springframework.core.ReactiveAdapterRegistry;
import org.springframework.core.annotation.MergedAnnotations;
import org.springframework.util.ClassUtils;

/**
 * How a {@code @RateLimit} method returns, read from its declaration when its bean is created, and
 * so when a call can be decided and when it ends. A call is decided before the method runs; with
 * {@code countOn} it is settled once it ends, which the interceptor sees only for a plain method
 * that is not asynchronous (it ends when it returns or throws), a {@code CompletionStage}, a {@code
 * Mono} and a {@code Flux}. A method whose call ends later, out of sight ({@code Future}, a Kotlin
 * {@code suspend} function, an {@code @Async} method), would be settled as if it had returned and
 * never count its failures, so {@code countOn} on it stops start-up. Stateless.
 */
final class Returns {

  /** The annotations that make Spring run a method later, on an executor. */
  private static final List<String> ASYNC =
      List.of(
          "org.springframework.scheduling.annotation.Async",
          "jakarta.ejb.Asynchronous",
          "jakarta.enterprise.concurrent.Asynchronous");

  private static final String CONTINUATION = "kotlin.coroutines.Continuation";

  private Returns() {}

  /**
   * How {@code method} of {@code type} returns.
   *
   * @param where the bean and method, for the message
   * @param settlesLater whether calls are settled once they end ({@code countOn})
   * @throws IllegalArgumentException naming {@code where}, the return type and what to do instead
   *     if it returns a reactive type other than {@code Mono} and {@code Flux}, a {@code
   *     CompletionStage} type other than {@code CompletionStage} and {@code CompletableFuture}, or
   *     (with {@code settlesLater}) if its calls end after it returns
   */
  static LimitedMethod.Kind kindOf(
      String where, Class<?> type, Method method, boolean settlesLater) {
    Class<?> returns = method.getReturnType();
    if (CompletionStage.class.isAssignableFrom(returns)) {
      if (!returns.isAssignableFrom(CompletableFuture.class)) {
        throw unsupported(where, returns, "declare CompletionStage or CompletableFuture");
      }
      return LimitedMethod.Kind.STAGE;
    }
    if (returns.getName().equals("reactor.core.publisher.Mono")) {
      return LimitedMethod.Kind.MONO;
    }
    if (returns.getName().equals("reactor.core.publisher.Flux")) {
      return LimitedMethod.Kind.FLUX;
    }
    if (reactive(returns)) {
      throw unsupported(where, returns, "of reactive types, declare Mono or Flux");
    }
    String endsLater = settlesLater ? endsLater(type, method) : null;
    if (endsLater != null) {
      throw new IllegalArgumentException(
          where
              + ": countOn cannot be applied, "
              + endsLater
              + ", so the interceptor cannot see how a call ends and would give every failed"
              + " call's permits back; countOn supports methods that return a value or void"
              + " (not asynchronously), CompletionStage, CompletableFuture, Mono or Flux; return"
              + " one of those, or drop countOn to count every call when it starts");
    }
    return LimitedMethod.Kind.PLAIN;
  }

  /**
   * Whether {@code result}, returned by a method declared to return a plain value, is in fact the
   * promise of a result yet to come (a {@code Future} or a reactive type), whose end the
   * interceptor does not see.
   */
  static boolean pending(Object result) {
    return result != null && (result instanceof Future<?> || reactive(result.getClass()));
  }

  /** Why a call of {@code method} ends after the method returns, or null if it ends then. */
  private static String endsLater(Class<?> type, Method method) {
    Class<?>[] parameters = method.getParameterTypes();
    if (parameters.length > 0 && parameters[parameters.length - 1].getName().equals(CONTINUATION)) {
      return "it is a Kotlin suspend function (it returns "
          + method.getReturnType().getName()
          + " and its result comes later, through a "
          + CONTINUATION
          + ")";
    }
    if (Future.class.isAssignableFrom(method.getReturnType())) {
      return "it returns " + method.getReturnType().getName() + ", whose result comes later";
    }
    MergedAnnotations onMethod =
        MergedAnnotations.from(method, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY);
    MergedAnnotations onType =
        MergedAnnotations.from(type, MergedAnnotations.SearchStrategy.TYPE_HIERARCHY);
    for (String async : ASYNC) {
      if (onMethod.isPresent(async) || onType.isPresent(async)) {
        return "it is @"
            + ClassUtils.getShortName(async)
            + ": it returns "
            + method.getReturnType().getName()
            + " before it runs, on an executor";
      }
    }
    return null;
  }

  /** Whether {@code type} is a reactive type (a publisher, or one Spring can adapt). */
  private static boolean reactive(Class<?> type) {
    if (Flow.Publisher.class.isAssignableFrom(type)
        || ReactiveAdapterRegistry.getSharedInstance().getAdapter(type) != null) {
      return true;
    }
    for (Class<?> implemented : ClassUtils.getAllInterfacesForClassAsSet(type)) {
      if (implemented.getName().equals("org.reactivestreams.Publisher")) {
        return true;
      }
    }
    return false;
  }

  private static IllegalArgumentException unsupported(
      String where, Class<?> returns, String instead) {
    return new IllegalArgumentException(
        where + ": cannot limit a method that returns " + returns.getName() + "; " + instead);
  }
}
