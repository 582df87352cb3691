package io.slidingwindow.http;

import io.slidingwindow.Decision;
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

  /** The outcome of a request let through. */
  EnforcementCore.Outcome passed(QuotaHeaders headers, List<Settlement.Pending> pending) {
    return headers == null && pending.isEmpty()
        ? EnforcementCore.Outcome.PASS
        : new EnforcementCore.Outcome(
            null, headers == null ? Map.of() : headers.headers(), null, Settlement.of(pending));
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
    if (rateLimitHeaders) {
      report.add(rule.limits(), entry.policies(), decision, rule.name());
    }
    if (decision.allowed()) {
      listener.allowed(rule, decision, key);
      if (!rule.dryRun()) {
        report.granted(rule.limits(), decision);
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
    return new EnforcementCore.Outcome(
        refusal.reply(retryAfterSeconds, report.headers(retryAfterSeconds)),
        Map.of(),
        decision,
        Settlement.of(pending));
  }
}
