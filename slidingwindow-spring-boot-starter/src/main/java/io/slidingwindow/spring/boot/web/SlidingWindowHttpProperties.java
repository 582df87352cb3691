package io.slidingwindow.spring.boot.web;

import io.slidingwindow.Limit;
import io.slidingwindow.http.PathFirewall;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * HTTP rate limiting bound from {@code slidingwindow.http.*}.
 *
 * <pre>{@code
 * slidingwindow:
 *   http:
 *     rate-limit-headers: true
 *     trusted-proxies: [10.0.0.0/8]
 *     path-firewall:
 *       enabled: true          # the default: ambiguous paths answer 400
 *     rules:
 *       product:
 *         paths: [/v1/product/**]
 *         key: ip
 *         limits:
 *           - { permits: 500, window: 2s }
 *           - { permits: 2000, window: 10s }
 *           - { permits: 10000, window: 60s }
 * }</pre>
 *
 * <p>The filter's order and dispatches are in {@link FilterProperties}. Values are checked when the
 * application starts; a bad one stops it with a message naming the property. Mutable, as Spring
 * binding needs; read only at start-up.
 */
@ConfigurationProperties(prefix = SlidingWindowHttpProperties.PREFIX)
public class SlidingWindowHttpProperties extends FilterProperties {

  /** The prefix of every property here. */
  public static final String PREFIX = "slidingwindow.http";

  /** Whether to install the rate-limit filter and the {@code @RateLimit} interceptor. */
  private boolean enabled = true;

  /** Whether responses carry the RateLimit-Policy and RateLimit headers (draft-10). */
  private boolean rateLimitHeaders = false;

  /** Dry-run for every rule that does not set its own: count and report, never refuse. */
  private boolean dryRun = false;

  /**
   * Proxies (addresses or CIDR blocks) whose X-Forwarded-For is believed. Empty: the client address
   * is always the connection's remote address.
   */
  private List<String> trustedProxies = new ArrayList<>();

  /**
   * How many leading bits of an IPv6 client address make its key, 1..128: one host usually holds a
   * whole /64 and may pick any address in it. IPv4 clients (and IPv4-mapped IPv6) are keyed by the
   * whole address.
   */
  private int ipv6PrefixLength = 64;

  /**
   * The most keys each rule tracks in memory; new keys beyond it are refused until old ones expire.
   */
  private long maxKeysPerRule = 100_000;

  /**
   * The most keys of one client (address) each rule tracks in memory, besides the address's own
   * key; unset, one hundredth of max-keys-per-rule. A client's new keys beyond it are refused, so
   * that a flood of made-up keys from a few addresses cannot fill the table for everyone else.
   */
  private Long maxKeysPerClient;

  /**
   * How often the in-memory limiters evict the keys whose windows count nothing, so that memory
   * taken by a flood of made-up keys comes back without new traffic; 0 turns it off.
   */
  private Duration cleanupInterval = Duration.ofSeconds(30);

  /** The rules by name, applied in the order written. */
  private Map<String, Rule> rules = new LinkedHashMap<>();

  /** The firewall that answers 400 to paths the container and the dispatcher may read apart. */
  private PathFirewallSpec pathFirewall = new PathFirewallSpec();

  /** How a refused request is answered (status, body, content type); the headers stay. */
  private RefusalProperties refusal = new RefusalProperties();

  public boolean isEnabled() {
    return enabled;
  }

  public void setEnabled(boolean enabled) {
    this.enabled = enabled;
  }

  public boolean isRateLimitHeaders() {
    return rateLimitHeaders;
  }

  public void setRateLimitHeaders(boolean rateLimitHeaders) {
    this.rateLimitHeaders = rateLimitHeaders;
  }

  public boolean isDryRun() {
    return dryRun;
  }

  public void setDryRun(boolean dryRun) {
    this.dryRun = dryRun;
  }

  public List<String> getTrustedProxies() {
    return trustedProxies;
  }

  public void setTrustedProxies(List<String> trustedProxies) {
    this.trustedProxies = trustedProxies;
  }

  public int getIpv6PrefixLength() {
    return ipv6PrefixLength;
  }

  public void setIpv6PrefixLength(int ipv6PrefixLength) {
    this.ipv6PrefixLength = ipv6PrefixLength;
  }

  public long getMaxKeysPerRule() {
    return maxKeysPerRule;
  }

  public void setMaxKeysPerRule(long maxKeysPerRule) {
    this.maxKeysPerRule = maxKeysPerRule;
  }

  public Long getMaxKeysPerClient() {
    return maxKeysPerClient;
  }

  public void setMaxKeysPerClient(Long maxKeysPerClient) {
    this.maxKeysPerClient = maxKeysPerClient;
  }

  public Duration getCleanupInterval() {
    return cleanupInterval;
  }

  public void setCleanupInterval(Duration cleanupInterval) {
    this.cleanupInterval = cleanupInterval;
  }

  public PathFirewallSpec getPathFirewall() {
    return pathFirewall;
  }

  public void setPathFirewall(PathFirewallSpec pathFirewall) {
    this.pathFirewall = pathFirewall;
  }

  public RefusalProperties getRefusal() {
    return refusal;
  }

  public void setRefusal(RefusalProperties refusal) {
    this.refusal = refusal;
  }

  public Map<String, Rule> getRules() {
    return rules;
  }

  public void setRules(Map<String, Rule> rules) {
    this.rules = rules;
  }

  /**
   * The path firewall ({@link PathFirewall}): on and strict by default.
   *
   * <pre>{@code
   * slidingwindow.http.path-firewall.allow: [semicolon]   # e.g. for ;jsessionid= URLs
   * slidingwindow.http.path-firewall.enabled: false       # only behind a proxy that normalizes
   * }</pre>
   */
  public static class PathFirewallSpec {

    /**
     * Whether request paths with path parameters, encoded dots or slashes, backslashes, empty or
     * dot segments, bad encodings or non-ASCII characters are answered 400 before any rule or
     * handler. Off, rules still match every reading of such paths.
     */
    private boolean enabled = true;

    /**
     * Spellings to let through: semicolon, encoded-period, encoded-slash, encoded-percent,
     * backslash, double-slash. Each weakens the firewall (see PathFirewall.Allowance); dot segments
     * and bad encodings stay refused.
     */
    private List<PathFirewall.Allowance> allow = new ArrayList<>();

    public boolean isEnabled() {
      return enabled;
    }

    public void setEnabled(boolean enabled) {
      this.enabled = enabled;
    }

    public List<PathFirewall.Allowance> getAllow() {
      return allow;
    }

    public void setAllow(List<PathFirewall.Allowance> allow) {
      this.allow = allow;
    }

    /** The firewall these settings describe. */
    PathFirewall toFirewall() {
      if (!enabled) {
        return PathFirewall.off();
      }
      return allow == null
          ? PathFirewall.strict()
          : PathFirewall.allowing(allow.toArray(new PathFirewall.Allowance[0]));
    }
  }

  /** One rule: which requests, under which key, by which limits. */
  public static class Rule extends RulePlanProperties {

    /** Ant-style path patterns; empty matches every path. */
    private List<String> paths = new ArrayList<>();

    /** HTTP methods; empty matches every method. */
    private List<String> methods = new ArrayList<>();

    /**
     * The key: {@code ip} (the client address), {@code header:NAME} (falls back to the address),
     * {@code principal} (falls back to the address), {@code global} (one key for all), {@code
     * bean:NAME} (a KeyResolver bean), or a key expression as in {@code @RateLimit}, such as {@code
     * header('X-Tenant') ?: clientIp}. Keys from different sources never share a bucket.
     */
    private String key = "ip";

    /** Whether refused requests are counted too (penalty mode). */
    private boolean countRefusedAttempts = false;

    /** Dry-run for this rule; unset inherits slidingwindow.http.dry-run. */
    private Boolean dryRun;

    /** The limits, all checked for every request; at least one. With plans: of keys on none. */
    private List<LimitSpec> limits = new ArrayList<>();

    /**
     * Apply the rule only when this expression (over the request, as a key expression) is true,
     * such as {@code method == 'POST'}; unset, always. Read nothing a client can set (a header it
     * sends, the raw path) to decide whether a rule binds.
     */
    private String executeCondition;

    /**
     * Skip the rule when this expression is true, such as {@code principalName == 'batch-service'};
     * unset, never. A condition that fails at request time leaves the rule applied.
     */
    private String skipCondition;

    /**
     * The permits each request takes, and the fewest it takes with cost-header or cost-expression;
     * at most every limit's permits.
     */
    private long cost = 1;

    /**
     * A request header giving the permits a request takes; missing, malformed, zero or negative
     * values take cost, values above a limit's permits are refused.
     */
    private String costHeader;

    /**
     * An expression (as a key expression) giving the permits a request takes, such as {@code
     * principalName == null ? 5 : 1}; read as cost-header.
     */
    private String costExpression;

    /**
     * Count a request only if its answer's status is one of these, each a status (401) or a range
     * (400-599), the server's own after error handling; reserved before the handler runs, given
     * back after. Empty, every request let through counts.
     */
    private List<String> countStatuses = new ArrayList<>();

    public List<String> getCountStatuses() {
      return countStatuses;
    }

    public void setCountStatuses(List<String> countStatuses) {
      this.countStatuses = countStatuses;
    }

    public List<String> getPaths() {
      return paths;
    }

    public void setPaths(List<String> paths) {
      this.paths = paths;
    }

    public List<String> getMethods() {
      return methods;
    }

    public void setMethods(List<String> methods) {
      this.methods = methods;
    }

    public String getKey() {
      return key;
    }

    public void setKey(String key) {
      this.key = key;
    }

    public boolean isCountRefusedAttempts() {
      return countRefusedAttempts;
    }

    public void setCountRefusedAttempts(boolean countRefusedAttempts) {
      this.countRefusedAttempts = countRefusedAttempts;
    }

    public Boolean getDryRun() {
      return dryRun;
    }

    public void setDryRun(Boolean dryRun) {
      this.dryRun = dryRun;
    }

    public List<LimitSpec> getLimits() {
      return limits;
    }

    public void setLimits(List<LimitSpec> limits) {
      this.limits = limits;
    }

    public String getExecuteCondition() {
      return executeCondition;
    }

    public void setExecuteCondition(String executeCondition) {
      this.executeCondition = executeCondition;
    }

    public String getSkipCondition() {
      return skipCondition;
    }

    public void setSkipCondition(String skipCondition) {
      this.skipCondition = skipCondition;
    }

    public long getCost() {
      return cost;
    }

    public void setCost(long cost) {
      this.cost = cost;
    }

    public String getCostHeader() {
      return costHeader;
    }

    public void setCostHeader(String costHeader) {
      this.costHeader = costHeader;
    }

    public String getCostExpression() {
      return costExpression;
    }

    public void setCostExpression(String costExpression) {
      this.costExpression = costExpression;
    }
  }

  /** One limit: at most {@code permits} in any {@code window}. */
  public static class LimitSpec {

    /** The most requests in any interval of length window; positive. */
    private Long permits;

    /** The window, such as 2s, 500ms or 1m. */
    private Duration window;

    /** Bucket width: how late capacity may come back; window/1000 by default. */
    private Duration precision;

    public Long getPermits() {
      return permits;
    }

    public void setPermits(Long permits) {
      this.permits = permits;
    }

    public Duration getWindow() {
      return window;
    }

    public void setWindow(Duration window) {
      this.window = window;
    }

    public Duration getPrecision() {
      return precision;
    }

    public void setPrecision(Duration precision) {
      this.precision = precision;
    }

    /**
     * The limit these properties describe, checked by {@link Limit} itself. A rule's plans read
     * each limit through it, so that a spec standing for a Limit given in code gives that Limit.
     *
     * @param prefix the path of these properties, such as {@code ...rules.quotes.limits[0]}
     * @throws IllegalArgumentException naming the property at fault and {@link Limit}'s reason
     */
    public Limit toLimit(String prefix) {
      return RuleBinder.limit(prefix, this);
    }
  }
}
