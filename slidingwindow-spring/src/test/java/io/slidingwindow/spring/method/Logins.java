package io.slidingwindow.spring.method;

import io.slidingwindow.spring.RateLimit;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A bean of the tests that counts failed logins only: each kind of return, 3 failures per 10 s a
 * user. The password {@code good} logs in, {@code down} fails with an error that does not count,
 * any other fails with {@link BadPassword}.
 */
public class Logins {

  /** A wrong password: what the limits count. */
  public static final class BadPassword extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BadPassword() {
      super("bad password", null, false, false);
    }
  }

  /** A specialization of a counted exception, counted too. */
  public static final class LockedOut extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    LockedOut() {
      super("locked out", null);
    }
  }

  static String check(String user, String password) {
    return switch (password) {
      case "good" -> "welcome " + user;
      case "down" -> throw new IllegalStateException("the user store is down");
      case "locked" -> throw new LockedOut();
      default -> throw new BadPassword();
    };
  }

  @RateLimit(
      limits = "3/10s",
      key = "#user",
      countOn = {BadPassword.class, IllegalArgumentException.class})
  public String plain(String user, String password) {
    return check(user, password);
  }

  @RateLimit(
      limits = "3/10s",
      key = "#user",
      countOn = {BadPassword.class, IllegalArgumentException.class})
  public CompletionStage<String> stage(String user, String password) {
    return CompletableFuture.supplyAsync(() -> check(user, password));
  }

  @RateLimit(
      limits = "3/10s",
      key = "#user",
      countOn = {BadPassword.class, IllegalArgumentException.class})
  public Mono<String> mono(String user, String password) {
    return Mono.fromCallable(() -> check(user, password));
  }

  @RateLimit(
      limits = "3/10s",
      key = "#user",
      countOn = {BadPassword.class, IllegalArgumentException.class})
  public Flux<String> flux(String user, String password) {
    return Flux.just("checking").concatWith(Mono.fromCallable(() -> check(user, password)));
  }

  @RateLimit(limits = "1/10s", key = "#user", countOn = BadPassword.class)
  public Mono<String> hanging(String user) {
    return Mono.never();
  }
}
