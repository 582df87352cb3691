package io.slidingwindow.spring.method;

import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.QuotaHeaders;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.http.Settlement;
import io.slidingwindow.spring.RateLimitExceededException;
import io.slidingwindow.spring.internal.RateLimitAnnotations;
import java.lang.System.Logger.Level;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.aop.support.AopUtils;

/**
 * One {@code @RateLimit} bean method: its rule, its key over the arguments, how it returns and its
 * fallback, and the enforcement (one limiter) it decides through, created on first need and shared
 * by the methods of one annotation with a rule name of its own. A call is decided as a request of
 * the HTTP rules is, by {@link EnforcementCore}: a key that throws or gives null counts under
 * {@link RequestKey#global()}, a limiter that fails lets the call through (fail-open, reported to
 * the listener), dry-run reports and lets through. With {@code countOn} the rule reserves, and the
 * call is settled once it ends: kept if it threw (or its stage or signal failed with) one of those
 * exceptions, given back otherwise. Thread-safe.
 */
final class LimitedMethod {

  private static final System.Logger LOG = System.getLogger(LimitedMethod.class.getName());

  /** How a limited method returns, which decides when and how a call is decided. */
  enum Kind {
    /** A plain value (or nothing): decided synchronously before the call. */
    PLAIN,
    /** A {@code CompletionStage}: decided without blocking, the method called once granted. */
    STAGE,
    /** A Reactor {@code Mono}: decided at each subscription, the method called once granted. */
    MONO,
    /** A Reactor {@code Flux}: as {@code MONO}. */
    FLUX
  }

  /** The "method" of a call, as the enforcement's log and rules read it. */
  private static final String CALL = "CALL";

  private final HttpRule rule;
  private final Function<Object[], RequestKey> key;
  private final Kind kind;
  private final Method method;
  private final String fallbackName;

  /** The fallback of each class of the beans that have the method, checked when each is created. */
  private final Map<Class<?>, Method> fallbacks = new ConcurrentHashMap<>();

  private final List<Class<? extends Throwable>> countOn;
  private final List<String> path;
  private final Method declaration;
  private final Limiter limiter;
  private final boolean named;

  /** The enforcement of a rule, created on first need, shared by the methods of a named rule. */
  private static final class Limiter {
    private volatile EnforcementCore<Object[]> core;
  }

  /**
   * A limited method; it decides through the limiter of {@code sharing}, another method of the same
   * annotation and rule name, unless that is null.
   */
  LimitedMethod(
      HttpRule rule,
      Function<Object[], RequestKey> key,
      Kind kind,
      Method method,
      String fallbackName,
      List<Class<? extends Throwable>> countOn,
      String where,
      Method declaration,
      boolean named,
      LimitedMethod sharing) {
    this.rule = rule;
    this.key = key;
    this.kind = kind;
    this.method = method;
    this.fallbackName = fallbackName;
    this.countOn = List.copyOf(countOn);
    this.path = List.of(where);
    this.declaration = declaration;
    this.limiter = sharing != null ? sharing.limiter : new Limiter();
    this.named = named;
  }

  HttpRule rule() {
    return rule;
  }

  Kind kind() {
    return kind;
  }

  /** Whether the rule has a name of the annotation's own, which every method of it shares. */
  boolean named() {
    return named;
  }

  /** The method that carries the annotation, as {@link Nesting} tells calls apart. */
  Method declaration() {
    return declaration;
  }

  /**
   * Checks what depends on the class of a bean that has the method, {@code type}: its fallback,
   * looked for there (several beans inherit one method, each with a fallback of its own), and, with
   * {@code countOn}, that its calls end when they return ({@code @Async} may be on the class).
   *
   * @param where the bean and method, for the message
   * @throws IllegalArgumentException naming {@code where} as {@link Fallbacks#find} and {@link
   *     Returns#kindOf} do
   */
  void checkFor(String where, Class<?> type) {
    Returns.kindOf(where, type, method, !countOn.isEmpty());
    if (!fallbackName.isEmpty()) {
      fallbacks.computeIfAbsent(type, t -> Fallbacks.find(where, t, method, fallbackName));
    }
  }

  /**
   * Creates the limiter through {@code factory} unless done already (by this method, or another
   * that shares it), telling {@code listener}.
   */
  EnforcementCore<Object[]> core(RateLimiterFactory factory, RateLimitListener listener) {
    EnforcementCore<Object[]> found = limiter.core;
    if (found == null) {
      synchronized (limiter) {
        found = limiter.core;
        if (found == null) {
          found =
              EnforcementCore.<Object[]>builder()
                  .rule(rule, key)
                  .limiterFactory(factory)
                  .listener(listener)
                  .pathFirewall(PathFirewall.off())
                  .build();
          limiter.core = found;
        }
      }
    }
    return found;
  }

  /** The synchronous decision on a call with {@code args}. */
  EnforcementCore.Outcome decide(EnforcementCore<Object[]> core, Object[] args) {
    return core.enforce(args, CALL, path, QuotaHeaders::new);
  }

  /** The decision on a call with {@code args}, without blocking. */
  CompletionStage<EnforcementCore.Outcome> decideAsync(
      EnforcementCore<Object[]> core, Object[] args) {
    return core.enforceAsync(args, CALL, path, QuotaHeaders::new);
  }

  /**
   * The answer of a granted call to a plain method: its result, or what it throws; its reserved
   * permits, if any, settled before the answer returns. A result that is still to come (a method
   * declared to return {@code Object} that returns a {@code Future} or a publisher) keeps them: how
   * that call ends is not seen, and the error is toward counting. The method runs as a call counted
   * under {@code marked} ({@link Nesting}), unless that is null. An {@link Error} the settling
   * throws (a backend's class that failed to load) is thrown, as {@link #ended} says: behind what
   * the method threw, never instead of it.
   */
  static Object plain(
      LimitedMethod limited,
      MethodInvocation invocation,
      Settlement settlement,
      Nesting.Mark marked)
      throws Throwable {
    if (settlement.isEmpty()) {
      return Nesting.run(marked, invocation::proceed);
    }
    Object result;
    try {
      result = Nesting.run(marked, invocation::proceed);
    } catch (Throwable e) {
      throw ended(e, settle(settlement, limited.statusOf(e)));
    }
    Throwable failed =
        settle(
            settlement,
            Returns.pending(result) ? RateLimitAnnotations.THREW : RateLimitAnnotations.RETURNED);
    if (failed != null) {
      throw failed;
    }
    return result;
  }

  /** Settles {@code settlement} with {@code status}; what that threw, or null. */
  private static Throwable settle(Settlement settlement, int status) {
    try {
      settlement.settle(status);
      return null;
    } catch (Throwable e) { // an Error, thrown once every rule's refund was attempted
      return e;
    }
  }

  /**
   * What a call that ended in {@code error} (null for a normal end) ends in once settling it threw
   * {@code failed} (null for nothing): the call's own failure, {@code failed} added to it (to the
   * cause a {@code CompletionException} wraps) as suppressed, so that a refund never hides how the
   * method ended nor changes what a caller's {@code countOn} sees; {@code failed} after a normal
   * end. A failure built to keep no suppressed exceptions cannot carry {@code failed}: it is then
   * logged at WARNING (a logging that throws is ignored), and the call still ends in the failure,
   * unchanged. A failure that already suppresses that very {@code failed} (the same instance thrown
   * and settled again) is left as it is.
   */
  static Throwable ended(Throwable error, Throwable failed) {
    if (error == null || failed == null) {
      return error == null ? failed : error;
    }
    Throwable cause = unwrap(error);
    if (failed != cause && failed != error && !suppresses(cause, failed)) {
      cause.addSuppressed(failed);
      if (!suppresses(cause, failed)) {
        warn(cause, failed);
      }
    }
    return error;
  }

  /**
   * Whether {@code failed}, that very instance, is among what {@code cause} suppresses: a failure
   * thrown anew on each call (a constant) then carries a refund's failure once, not once a call.
   */
  private static boolean suppresses(Throwable cause, Throwable failed) {
    for (Throwable suppressed : cause.getSuppressed()) {
      if (suppressed == failed) {
        return true;
      }
    }
    return false;
  }

  /**
   * Logs at WARNING that {@code failed} could not be added to {@code cause}; what the logging
   * throws (a failing handler) goes no further, as settling never throws.
   */
  private static void warn(Throwable cause, Throwable failed) {
    try {
      LOG.log(
          Level.WARNING,
          "giving a rate-limited call's permits back failed, and the call's failure ("
              + cause.getClass().getName()
              + ") cannot carry that as suppressed",
          failed);
    } catch (Throwable ignored) {
      // nowhere left to report it: the refund's failure is lost, the call's own goes on
    }
  }

  /**
   * Settles {@code settlement} without blocking, as a call that ended in {@code error} (null for a
   * normal end): kept if the error is one of {@link io.slidingwindow.spring.RateLimit#countOn()},
   * given back otherwise. Never throws: returns what the call then ends in, as {@link #ended} says
   * ({@code error} unless asking for a refund threw).
   */
  Throwable settleAsync(Settlement settlement, Throwable error) {
    if (settlement.isEmpty()) {
      return error;
    }
    Throwable failed = null;
    try {
      var unused = settlement.settleAsync(statusOf(error));
    } catch (Throwable e) { // an Error, thrown once every rule's refund was asked for
      failed = e;
    }
    return ended(error, failed);
  }

  /** The status a call that ended in {@code error} (null for none) is settled with. */
  int statusOf(Throwable error) {
    Throwable cause = unwrap(error);
    for (Class<? extends Throwable> type : countOn) {
      if (type.isInstance(cause)) {
        return RateLimitAnnotations.THREW;
      }
    }
    return RateLimitAnnotations.RETURNED;
  }

  /** {@code error} without the {@code CompletionException}s that wrap it. */
  private static Throwable unwrap(Throwable error) {
    Throwable cause = error;
    while (cause instanceof CompletionException && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause;
  }

  /** The exception of a refused {@code outcome}. */
  RateLimitExceededException refusal(EnforcementCore.Outcome outcome) {
    return new RateLimitExceededException(rule.name(), outcome.refused());
  }

  /**
   * The answer to a refused call of the method on {@code target}: the fallback's result (the
   * fallback of the target's class), or the refusal thrown if there is no fallback; what the
   * fallback throws is thrown as is.
   */
  Object refused(Object target, Object[] args, RateLimitExceededException refusal)
      throws Throwable {
    if (fallbackName.isEmpty()) {
      throw refusal;
    }
    Class<?> type = AopUtils.getTargetClass(target);
    Method fallback = fallbacks.get(type);
    if (fallback == null) {
      fallback =
          fallbacks.computeIfAbsent(
              type, t -> Fallbacks.find(path.get(0), t, method, fallbackName));
    }
    Object[] withRefusal = Arrays.copyOf(args, args.length + 1);
    withRefusal[args.length] = refusal;
    try {
      return fallback.invoke(target, withRefusal);
    } catch (InvocationTargetException e) {
      throw e.getCause();
    }
  }

  /**
   * Runs {@code invocation}'s method once more: a copy of it, so that it may run at any time; as a
   * call counted under {@code marked} ({@link Nesting}), unless that is null.
   */
  static Object proceed(MethodInvocation invocation, Nesting.Mark marked) throws Throwable {
    MethodInvocation copy =
        invocation instanceof ProxyMethodInvocation proxied ? proxied.invocableClone() : invocation;
    return Nesting.run(marked, copy::proceed);
  }

  /**
   * The answer of a call to a method that returns a {@code CompletionStage}: decided without
   * blocking; once granted, the method is called on the thread that completed the decision (the
   * caller's, with the in-memory backend) and its stage's result passed on; refused, the fallback's
   * stage or the refusal as the error. Never throws, and the stage it returns always completes once
   * the method's does, even when settling throws (as {@link #ended} says). The method runs as a
   * call counted under {@code marked} ({@link Nesting}), unless that is null.
   */
  CompletableFuture<Object> stage(
      EnforcementCore<Object[]> core,
      MethodInvocation invocation,
      Object target,
      Nesting.Mark marked) {
    Object[] args = invocation.getArguments();
    CompletableFuture<Object> result = new CompletableFuture<>();
    CompletionStage<EnforcementCore.Outcome> decision;
    try {
      decision = decideAsync(core, args);
    } catch (RuntimeException e) {
      result.completeExceptionally(e);
      return result;
    }
    decision.whenComplete(
        (outcome, error) -> {
          Settlement settlement = error != null ? Settlement.none() : outcome.settlement();
          try {
            Object answer =
                error != null || outcome.allowed()
                    ? Nesting.run(marked, invocation::proceed)
                    : refused(target, args, refusal(outcome));
            if (answer == null) {
              end(result, null, settleAsync(settlement, null));
            } else {
              ((CompletionStage<?>) answer)
                  .whenComplete(
                      (value, failure) -> end(result, value, settleAsync(settlement, failure)));
            }
          } catch (Throwable e) {
            end(result, null, settleAsync(settlement, e));
          }
        });
    return result;
  }

  /** Completes {@code result} with {@code value}, or with {@code error} unless that is null. */
  private static void end(CompletableFuture<Object> result, Object value, Throwable error) {
    if (error != null) {
      result.completeExceptionally(error);
    } else {
      result.complete(value);
    }
  }
}
