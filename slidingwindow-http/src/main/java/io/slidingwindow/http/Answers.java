package io.slidingwindow.http;

import io.slidingwindow.Decision;
import io.slidingwindow.Plan;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.Map;

/**
 * What a core makes of a rule's decision (its headers, the listener, dry-run, the refusal) and of a
 * request let through.
 *
 * @param listener told of each decision
 * @param rateLimitHeaders whether the draft-10 headers are added
 * @param refusal how a refusal is answered
 */
record Answers(ListenerCalls listener, boolean rateLimitHeaders, RefusalReplies.Refusal refusal) {

  private static final System.Logger LOG = System.getLogger(EnforcementCore.class.getName());

  /**
   * The plan that decided {@code key}, as its rule's limiter tells it, or null for the rule's own
   * limits. A limiter that fails to tell is taken to have decided by a plan of the decision's limit
   * alone, so that the headers tell that limit only, never the rule's other limits.
   */
  private static Plan planOf(RuleEntry<?> entry, String key, Decision decision) {
    try {
      return entry.limiter().planOf(key);
    } catch (RuntimeException e) {
      LOG.log(Level.DEBUG, "the plan of a key could not be read: " + e);
      return Plan.of(entry.rule().name(), decision.limit());
    }
  }

  /** The outcome of a request let through. */
  EnforcementCore.Outcome passed(QuotaHeaders headers, List<Settlement.Pending> pending) {
    return headers == null && pending.isEmpty()
        ? EnforcementCore.Outcome.PASS
        : EnforcementCore.Outcome.passed(
            headers == null ? Map.of() : headers.headers(), Settlement.of(pending));
  }

  /**
   * Records {@code decision} of {@code entry}: headers, listener, dry-run. Returns the refusal if
   * the rule refuses and enforces, otherwise null.
   */
  EnforcementCore.Outcome apply(
      RuleEntry<?> entry,
      String key,
      Decision decision,
      QuotaHeaders report,
      String method,
      List<String> paths,
      List<Settlement.Pending> pending) {
    HttpRule rule = entry.rule();
    if (decision.isKeyOverflow()) {
      listener.keyOverflow(rule);
    }
    boolean bounds = decision.allowed() && !rule.dryRun() && decision.remaining() < 1;
    Plan plan = rateLimitHeaders || bounds ? planOf(entry, key, decision) : null;
    if (rateLimitHeaders) {
      if (plan == null) {
        report.add(rule.limits(), entry.policies(), decision);
      } else {
        report.addOnPlan(rule.name(), decision);
      }
    }
    if (decision.allowed()) {
      listener.allowed(rule, decision, key);
      if (!rule.dryRun()) {
        report.granted(plan == null ? rule.limits() : plan.limits(), decision);
      }
      return null;
    }
    listener.refused(rule, decision, rule.dryRun(), key);
    if (rule.dryRun()) {
      LOG.log(
          Level.DEBUG,
          "rate limit rule ''{0}'' (dry-run) would refuse {1} {2}; retry after {3} s",
          rule.name(),
          method,
          paths.get(0),
          QuotaHeaders.retryAfterSecondsOf(decision.retryAfter()));
      return null;
    }
    long retryAfterSeconds = report.retryAfterSeconds(decision.retryAfter());
    return EnforcementCore.Outcome.refused(
        refusal.reply(retryAfterSeconds, report.headers(retryAfterSeconds)),
        decision,
        Settlement.of(pending));
  }
}
