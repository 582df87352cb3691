package io.slidingwindow.spring.boot.dashboard;

import io.slidingwindow.DurationText;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.LimiterKeys;
import io.slidingwindow.Quota;
import io.slidingwindow.spring.boot.internal.RulesInService;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * The quota operations of the {@code slidingwindow} endpoint: a key's remaining permits in a rule
 * of {@code slidingwindow.http.rules} ({@link KeyedRateLimiter#peek}, nothing taken) and its reset
 * ({@link KeyedRateLimiter#reset}).
 *
 * <p>A key is written as the rule's key makes it ({@code custom:demo-key-1}, {@code
 * principal:alice}, {@code ip:192.0.2.7}). Each operation writes one INFO line to the log: the
 * operation, the rule and a digest of the key ({@code sha256:} and the first 16 characters of the
 * Base64url SHA-256 of the key as counted), never the key itself, since keys may be API keys; a
 * reset also writes the key's plan, its limits and the permits each counted before and after. A
 * backend that cannot peek or reset yet answers {@link Answer#unsupported}, naming the reason.
 * Thread-safe.
 */
final class SlidingWindowQuotas {

  /**
   * The name of the endpoint's audit logger (quota resets, plan changes, refused browser requests),
   * as the docs tell users to configure it: a fixed string, so that renaming a class cannot change
   * it.
   */
  static final String AUDIT_LOGGER = "io.slidingwindow.spring.boot.dashboard.SlidingWindowQuotas";

  private static final System.Logger LOG = System.getLogger(AUDIT_LOGGER);

  /** What an operation answers: an HTTP status and a JSON body. */
  public record Answer(int status, Map<String, Object> body) {

    /** 501: the backend of the rule cannot do this operation. */
    static Answer unsupported(String reason) {
      return new Answer(501, Map.of("error", reason));
    }
  }

  private final Supplier<Stream<RulesInService>> rules;

  /** Operates on the rules in service of {@code rules} (each web stack's, usually one). */
  SlidingWindowQuotas(Supplier<Stream<RulesInService>> rules) {
    this.rules = rules;
  }

  /**
   * What is left of {@code key}'s limits in rule {@code rule}: 200 with {@code
   * {"rule":..,"plan":..,"limits":[{"permits":5,"window":"10s","used":5,"remaining":0,
   * "resetAfter":"4s"}]}}, 404 if no such rule is in service, 501 if its backend cannot peek.
   */
  public Answer peek(String rule, String key) {
    Optional<KeyedRateLimiter<String>> limiter = limiter(rule);
    audit("peek", rule, key, limiter.isPresent());
    if (limiter.isEmpty()) {
      return notFound(rule);
    }
    Quota quota;
    try {
      quota = limiter.get().peek(LimiterKeys.bounded(key));
    } catch (UnsupportedOperationException e) {
      return Answer.unsupported("rule " + rule + ": peek is not supported: " + e.getMessage());
    }
    return new Answer(200, body(rule, quota));
  }

  /**
   * Forgets every permit recorded for {@code key} in rule {@code rule}: 200 with the quota
   * afterwards (as {@link #peek}), 404 if no such rule is in service, 501 if its backend cannot
   * reset.
   */
  public Answer reset(String rule, String key) {
    Optional<KeyedRateLimiter<String>> limiter = limiter(rule);
    if (limiter.isEmpty()) {
      audit("reset", rule, key, false);
      return notFound(rule);
    }
    String counted = LimiterKeys.bounded(key);
    Quota before;
    Quota after;
    try {
      before = limiter.get().peek(counted);
      limiter.get().reset(counted);
      after = limiter.get().peek(counted);
    } catch (RuntimeException e) {
      if (!(e instanceof UnsupportedOperationException)) {
        LOG.log(
            Level.INFO,
            "slidingwindow quota reset: rule={0} key={1} (failed: {2})",
            rule,
            digest(key),
            e.toString());
        throw e;
      }
      String reason = "rule " + rule + ": reset is not supported: " + e.getMessage();
      LOG.log(
          Level.INFO,
          "slidingwindow quota reset: rule={0} key={1} (501: {2})",
          rule,
          digest(key),
          reason);
      return Answer.unsupported(reason);
    }
    LOG.log(
        Level.INFO,
        "slidingwindow quota reset: rule={0} key={1} plan={2} limits={3} used={4} -> {5}",
        rule,
        digest(key),
        before.plan().orElse("(none)"),
        limitsText(before),
        used(before),
        used(after));
    return new Answer(200, body(rule, after));
  }

  private static String limitsText(Quota quota) {
    List<String> limits = new ArrayList<>();
    quota.limits().forEach(usage -> limits.add(usage.limit().toText()));
    return limits.toString();
  }

  private static String used(Quota quota) {
    List<Long> used = new ArrayList<>();
    quota.limits().forEach(usage -> used.add(usage.used()));
    return used.toString();
  }

  private Optional<KeyedRateLimiter<String>> limiter(String rule) {
    return rules.get().flatMap(r -> r.limiter(rule).stream()).findFirst();
  }

  private static Answer notFound(String rule) {
    return new Answer(404, Map.of("error", "no rule named '" + rule + "' is in service"));
  }

  private static Map<String, Object> body(String rule, Quota quota) {
    List<Map<String, Object>> limits = new ArrayList<>();
    for (Quota.Usage usage : quota.limits()) {
      Map<String, Object> limit = new LinkedHashMap<>();
      limit.put("permits", usage.limit().permits());
      limit.put("window", DurationText.format(usage.limit().window()));
      limit.put("used", usage.used());
      limit.put("remaining", usage.remaining());
      limit.put(
          "resetAfter",
          usage.resetAfter().isZero() ? "0s" : DurationText.format(usage.resetAfter()));
      limits.add(limit);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("rule", rule);
    quota.plan().ifPresent(plan -> body.put("plan", plan));
    body.put("limits", limits);
    return body;
  }

  private static void audit(String operation, String rule, String key, boolean found) {
    LOG.log(
        Level.INFO,
        "slidingwindow quota {0}: rule={1} key={2}{3}",
        operation,
        rule,
        digest(key),
        found ? "" : " (no such rule)");
  }

  /** {@code sha256:} and the first 16 characters of the Base64url SHA-256 of the counted key. */
  static String digest(String key) {
    try {
      byte[] hash =
          MessageDigest.getInstance("SHA-256")
              .digest(LimiterKeys.bounded(key).getBytes(StandardCharsets.UTF_8));
      return "sha256:"
          + Base64.getUrlEncoder().withoutPadding().encodeToString(hash).substring(0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is missing from this JVM", e);
    }
  }
}
