package io.slidingwindow.server.admin;

import io.slidingwindow.server.config.ConfigWatcher;
import io.slidingwindow.server.config.RateLimitConfig;
import io.slidingwindow.server.config.Rule;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.ServiceHealth;
import io.slidingwindow.server.http.AllowedHosts;
import io.slidingwindow.server.http.Json;
import io.slidingwindow.server.http.Router;
import io.slidingwindow.server.settings.Secret;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The admin port's endpoints, behind the bearer token when one is set:
 *
 * <ul>
 *   <li>{@code GET /metrics}: Prometheus's text format ({@link ServerMetrics}).
 *   <li>{@code GET /v1/stats}: the loaded domains, the number of rules, the configuration's path
 *       and last reload error, readiness, and the store with its state and failed decisions.
 *   <li>{@code GET /v1/config}: the loaded configuration: per domain its failure policy and rules,
 *       each with its path, name, limits, shadow mode and where it is written.
 *   <li>{@code GET /}, {@code /dashboard}, {@code /dashboard/*}, {@code /v1/dashboard}: the
 *       dashboard ({@link Dashboard}).
 *   <li>{@code PUT}, {@code GET}, {@code DELETE /v1/overrides} and {@code POST}, {@code DELETE
 *       /v1/quota}: run-time overrides and quota operations on one descriptor ({@link
 *       OverrideRoutes}), audited in the log.
 * </ul>
 *
 * <p>Without a token, a request is served, on any path, only at a {@code Host} of {@code
 * localhost}, an IP address or an allowed host name ({@link AllowedHosts}), else 403: a web page
 * whose host name is rebound to 127.0.0.1 cannot read the feed's refused keys, the overrides or the
 * configuration from the operator's browser. With a token the allowed host names are unused, and a
 * WARN line at start-up says so when some are given.
 *
 * <p>Each request refused before it is served (401, 403, 415) is counted by reason in {@code
 * slidingwindow_server_request_errors_total{transport="admin"}} and written on the audit logger,
 * bounded ({@link AdminRefusals}).
 */
public final class AdminRoutes {

  private static final System.Logger LOG = System.getLogger(AdminRoutes.class.getName());

  private AdminRoutes() {}

  /**
   * The admin port's router; every request must carry {@code token} unless it is null, and then
   * name {@code localhost}, an IP address or one of {@code allowedHosts} in its {@code Host}.
   */
  public static Router router(
      Secret token,
      List<String> allowedHosts,
      Decider decider,
      ConfigWatcher watcher,
      ServerMetrics metrics,
      ServiceHealth health) {
    if (token != null && !allowedHosts.isEmpty()) {
      LOG.log(
          Level.WARNING,
          "--admin-allowed-hosts (SLIDINGWINDOW_ADMIN_ALLOWED_HOSTS) {0} is unused: with an admin"
              + " token the admin port answers every Host, as the token is its guard; the list"
              + " applies only without a token",
          allowedHosts);
    }
    AllowedHosts hosts = new AllowedHosts(allowedHosts);
    AdminRefusals refusals = new AdminRefusals(reason -> metrics.refused("admin", reason));
    Router router =
        new Router(token, hosts, refusals)
            .add(
                "GET",
                "/metrics",
                e -> e.respond(200, "text/plain; version=0.0.4; charset=utf-8", metrics.scrape()))
            .add(
                "GET",
                "/v1/stats",
                e ->
                    e.respond(200, "application/json", Json.write(stats(decider, watcher, health))))
            .add(
                "GET",
                "/v1/config",
                e -> e.respond(200, "application/json", Json.write(config(decider, watcher))));
    new Dashboard(decider, metrics.recorder(), watcher, health).addTo(router);
    OverrideRoutes.addTo(router, decider.adminOverrides(), token != null, hosts);
    metrics.adminOverrides(decider.adminOverrides());
    return router;
  }

  static Map<String, Object> stats(Decider decider, ConfigWatcher watcher, ServiceHealth health) {
    RateLimitConfig config = decider.config();
    Map<String, Object> stats = new LinkedHashMap<>();
    stats.put("domains", config.domains());
    stats.put("rules", config.rules().size());
    stats.put("config", watcher.path().toString());
    stats.put("lastReloadError", watcher.lastError());
    stats.put("ready", health.ready());
    stats.put("backend", health.describe());
    return stats;
  }

  static Map<String, Object> config(Decider decider, ConfigWatcher watcher) {
    RateLimitConfig config = decider.config();
    List<Object> domains = new ArrayList<>();
    for (String domain : config.domains()) {
      List<Object> rules = new ArrayList<>();
      for (Rule rule : config.rules()) {
        if (domain.equals(rule.domain())) {
          Map<String, Object> view = new LinkedHashMap<>();
          view.put("rule", rule.path());
          view.put("name", rule.name());
          view.put("limits", Dashboard.limits(rule));
          view.put("shadowMode", rule.shadowMode());
          view.put("replaces", rule.replaces());
          view.put("source", rule.source());
          rules.add(view);
        }
      }
      Map<String, Object> view = new LinkedHashMap<>();
      view.put("domain", domain);
      view.put(
          "failurePolicy", config.failurePolicy(domain).name().toLowerCase(java.util.Locale.ROOT));
      view.put("rules", rules);
      domains.add(view);
    }
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("path", watcher.path().toString());
    answer.put("lastReloadError", watcher.lastError());
    answer.put("domains", domains);
    return answer;
  }
}
