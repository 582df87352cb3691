package io.slidingwindow.server.config;

import io.slidingwindow.DurationText;
import io.slidingwindow.FailurePolicy;
import io.slidingwindow.Limit;
import io.slidingwindow.server.ConfigException;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * Reads rate limit configuration files in envoyproxy/ratelimit's YAML format, with this service's
 * extensions, into a {@link RateLimitConfig}.
 *
 * <p>Every file holds one domain. A file that envoyproxy/ratelimit accepts loads unchanged: {@code
 * domain}, {@code descriptors} with {@code key}, optional {@code value} (a {@code *} in it matches
 * any text), nested {@code descriptors}, {@code rate_limit} with {@code unit} and {@code
 * requests_per_unit} (0 refuses every request), {@code unlimited}, {@code name} and {@code
 * replaces}, {@code shadow_mode} and {@code share_threshold}. {@code detailed_metric}, {@code
 * value_to_metric}, {@code quota_mode} and {@code metadata} are accepted and have no effect.
 *
 * <p>Extensions: inside {@code rate_limit}, {@code window} (a duration such as {@code 90s}) may
 * replace {@code unit}, and {@code precision} sets the bucket width; beside it, {@code rate_limits}
 * lists further limits, each {@code {requests, window[, precision]}}, all of which a request must
 * fit. Durations are a whole number with {@code ms}, {@code s}, {@code m}, {@code h} or {@code d},
 * or ISO-8601 ({@code PT1M30S}). At the top, {@code failure_policy} ({@code local}, the default,
 * {@code allow} or {@code refuse}: {@link FailurePolicy}; {@code open} and {@code closed} are read
 * as {@code allow} and {@code refuse}) says what answers while Redis fails, when counts live there.
 *
 * <p>Refused beyond what envoyproxy/ratelimit refuses: {@code replaces} that form a cycle ({@link
 * ReplacesCycles}), which would leave a request matching every rule of it counted by none.
 *
 * <p>Errors name the file and the line. Not thread-safe; use one parser per load.
 */
public final class ConfigParser {

  /** One configuration file's name (for messages) and text. */
  public record Source(String name, String text) {}

  private static final Set<String> ROOT_KEYS = Set.of("domain", "descriptors", "failure_policy");
  private static final Set<String> DESCRIPTOR_KEYS =
      Set.of(
          "key",
          "value",
          "rate_limit",
          "rate_limits",
          "descriptors",
          "shadow_mode",
          "quota_mode",
          "detailed_metric",
          "value_to_metric",
          "share_threshold",
          "metadata");
  private static final Set<String> RATE_LIMIT_KEYS =
      Set.of("unit", "requests_per_unit", "unlimited", "name", "replaces", "window", "precision");
  private static final Set<String> EXTRA_LIMIT_KEYS = Set.of("requests", "window", "precision");
  private static final Set<String> REPLACES_KEYS = Set.of("name");

  private final Map<String, DescriptorNode> domains = new HashMap<>();
  private final Map<String, FailurePolicy> failurePolicies = new HashMap<>();
  private final List<Rule> rules = new ArrayList<>();
  private String file;
  private YamlFields yaml;
  private FailurePolicy failurePolicy;

  /**
   * Parses {@code sources}, one domain each.
   *
   * @throws ConfigException naming the file and line of the first fault
   */
  public static RateLimitConfig parse(List<Source> sources) throws ConfigException {
    ConfigParser parser = new ConfigParser();
    for (Source source : sources) {
      parser.parseFile(source);
    }
    return new RateLimitConfig(parser.domains, parser.failurePolicies, parser.rules);
  }

  private void parseFile(Source source) throws ConfigException {
    file = source.name();
    yaml = new YamlFields(file);
    LoaderOptions options = new LoaderOptions();
    options.setAllowDuplicateKeys(false);
    options.setMaxAliasesForCollections(50);
    Node root;
    try {
      root = new Yaml(options).compose(new StringReader(source.text()));
    } catch (MarkedYAMLException e) {
      Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      String problem = e.getProblem() != null ? e.getProblem() : e.getMessage();
      throw new ConfigException(
          file + (mark == null ? "" : " line " + (mark.getLine() + 1)) + ": " + problem, e);
    } catch (YAMLException e) {
      throw new ConfigException(file + ": " + e.getMessage(), e);
    }
    if (root == null) {
      throw new ConfigException(file + ": the file is empty; it needs a domain");
    }
    Map<String, NodeTuple> fields = yaml.mapping(root, ROOT_KEYS, "the file");
    String domain = yaml.string(fields, "domain", root, true);
    if (domain.isEmpty()) {
      throw yaml.fault(root, "domain must not be empty");
    }
    if (domains.containsKey(domain)) {
      throw yaml.fault(
          fields.get("domain").getValueNode(), "domain '" + domain + "' is defined twice");
    }
    failurePolicy = FailurePolicy.DEFAULT;
    String policy = yaml.string(fields, "failure_policy", root, false);
    if (policy != null) {
      failurePolicy = failurePolicy(policy);
      if (failurePolicy == null) {
        throw yaml.fault(
            fields.get("failure_policy").getValueNode(),
            "failure_policy must be local, allow or refuse, was '" + policy + "'");
      }
    }
    int first = rules.size();
    DescriptorNode tree = descriptors(domain, "", "", new String[0], fields.get("descriptors"));
    ReplacesCycles.check(rules.subList(first, rules.size()));
    domains.put(domain, tree);
    failurePolicies.put(domain, failurePolicy);
  }

  /** The policy {@code failure_policy} names (also as {@code open} or {@code closed}), or null. */
  private static FailurePolicy failurePolicy(String name) {
    return switch (name.trim().toLowerCase(Locale.ROOT)) {
      case "local" -> FailurePolicy.LOCAL;
      case "allow", "open" -> FailurePolicy.ALLOW;
      case "refuse", "closed" -> FailurePolicy.REFUSE;
      default -> null;
    };
  }

  /**
   * The level below {@code parentPath} (whose {@link Rule#selector()} is {@code parentSelector});
   * {@code parentShared} holds, per level above, the pattern counted in place of values there
   * ({@code share_threshold}), or null.
   */
  private DescriptorNode descriptors(
      String domain,
      String parentPath,
      String parentSelector,
      String[] parentShared,
      NodeTuple field)
      throws ConfigException {
    DescriptorNode level = new DescriptorNode();
    if (field == null || YamlFields.isNull(field.getValueNode())) {
      return level;
    }
    Node list = field.getValueNode();
    if (!(list instanceof SequenceNode sequence)) {
      throw yaml.fault(list, "descriptors must be a list");
    }
    for (Node item : sequence.getValue()) {
      Map<String, NodeTuple> fields = yaml.mapping(item, DESCRIPTOR_KEYS, "a descriptor");
      String key = yaml.string(fields, "key", item, true);
      if (key.isEmpty()) {
        throw yaml.fault(item, "descriptor key must not be empty");
      }
      String value = yaml.string(fields, "value", item, false);
      if (value != null && value.isEmpty()) {
        value = null;
      }
      String path =
          parentPath + (parentPath.isEmpty() ? "" : ".") + key + (value == null ? "" : "_" + value);
      String selector =
          parentSelector
              + key.length()
              + ':'
              + key
              + (value == null ? "-" : "=" + value.length() + ':' + value);
      boolean shadowMode = yaml.bool(fields, "shadow_mode");
      yaml.bool(fields, "quota_mode");
      yaml.bool(fields, "detailed_metric");
      yaml.bool(fields, "value_to_metric");
      boolean shareThreshold = yaml.bool(fields, "share_threshold");
      if (shareThreshold && (value == null || !value.contains("*"))) {
        throw yaml.fault(
            fields.get("share_threshold").getKeyNode(),
            "share_threshold needs a value with a '*' wildcard, but descriptor '"
                + path
                + "' has none");
      }
      String[] shared = Arrays.copyOf(parentShared, parentShared.length + 1);
      shared[parentShared.length] = shareThreshold ? value : null;
      Rule rule = rule(domain, path, selector, shadowMode, shared, fields);
      if (rule != null) {
        rules.add(rule);
      }
      DescriptorNode children =
          descriptors(domain, path, selector, shared, fields.get("descriptors"));
      if (!level.add(new DescriptorNode.Child(key, value, shareThreshold, rule, children))) {
        throw yaml.fault(item, "descriptor '" + path + "' is defined twice at this level");
      }
    }
    return level;
  }

  private Rule rule(
      String domain,
      String path,
      String selector,
      boolean shadowMode,
      String[] sharedPatterns,
      Map<String, NodeTuple> fields)
      throws ConfigException {
    NodeTuple single = fields.get("rate_limit");
    NodeTuple extra = fields.get("rate_limits");
    boolean hasSingle = single != null && !YamlFields.isNull(single.getValueNode());
    boolean hasExtra = extra != null && !YamlFields.isNull(extra.getValueNode());
    if (!hasSingle && !hasExtra) {
      return null;
    }
    List<Limit> limits = new ArrayList<>();
    boolean unlimited = false;
    boolean blocked = false;
    TimeUnitName blockedUnit = TimeUnitName.UNKNOWN;
    String name = "";
    List<String> replaces = new ArrayList<>();
    int line = (hasSingle ? single : extra).getKeyNode().getStartMark().getLine() + 1;
    if (hasSingle) {
      Node block = single.getValueNode();
      Map<String, NodeTuple> limit = yaml.mapping(block, RATE_LIMIT_KEYS, "rate_limit");
      unlimited = yaml.bool(limit, "unlimited");
      name = YamlFields.orEmpty(yaml.string(limit, "name", block, false));
      replaces = replaces(limit.get("replaces"), name);
      if (unlimited) {
        for (String forbidden : List.of("unit", "window", "requests_per_unit", "precision")) {
          if (limit.containsKey(forbidden)) {
            throw yaml.fault(
                limit.get(forbidden).getKeyNode(), "an unlimited rate_limit has no " + forbidden);
          }
        }
        if (hasExtra) {
          throw yaml.fault(extra.getKeyNode(), "an unlimited descriptor has no rate_limits");
        }
      } else {
        Duration window = window(limit, block, "rate_limit");
        long requests = yaml.count(limit, "requests_per_unit", block, 0);
        if (requests == 0) {
          blocked = true;
          blockedUnit = TimeUnitName.of(window);
        } else {
          limits.add(limit(requests, window, limit, block));
        }
      }
    }
    if (hasExtra) {
      Node list = extra.getValueNode();
      if (!(list instanceof SequenceNode sequence) || sequence.getValue().isEmpty()) {
        throw yaml.fault(list, "rate_limits must be a non-empty list of {requests, window}");
      }
      for (Node item : sequence.getValue()) {
        Map<String, NodeTuple> limit = yaml.mapping(item, EXTRA_LIMIT_KEYS, "a rate_limits entry");
        if (!limit.containsKey("window")) {
          throw yaml.fault(item, "a rate_limits entry needs a window, such as 90s");
        }
        long requests = yaml.count(limit, "requests", item, 1);
        limits.add(limit(requests, window(limit, item, "a rate_limits entry"), limit, item));
      }
    }
    Rule.Builder rule =
        Rule.builder(domain, path, selector, file + " line " + line)
            .shadowMode(shadowMode)
            .name(name, replaces)
            .sharedPatterns(sharedPatterns)
            .failurePolicy(failurePolicy);
    if (unlimited) {
      rule.unlimited();
    } else if (blocked) {
      rule.blocked(blockedUnit);
    } else {
      rule.limits(limits);
    }
    return rule.build(rules.size());
  }

  private Limit limit(long requests, Duration window, Map<String, NodeTuple> fields, Node at)
      throws ConfigException {
    try {
      Limit limit = Limit.of(requests, window);
      NodeTuple precision = fields.get("precision");
      if (precision != null) {
        limit = limit.withPrecision(duration(precision.getValueNode(), "precision"));
      }
      if (limit.maxStoredRuns() > Integer.MAX_VALUE) {
        throw yaml.fault(
            at, "limit " + limit + " would need too many buckets; use a coarser precision");
      }
      return limit;
    } catch (IllegalArgumentException e) {
      throw yaml.fault(at, e.getMessage());
    }
  }

  private Duration window(Map<String, NodeTuple> fields, Node at, String what)
      throws ConfigException {
    NodeTuple unit = fields.get("unit");
    NodeTuple window = fields.get("window");
    if (unit != null && window != null) {
      throw yaml.fault(window.getKeyNode(), what + " has both unit and window; give one");
    }
    if (window != null) {
      return duration(window.getValueNode(), "window");
    }
    if (unit == null) {
      throw yaml.fault(
          at, what + " needs a unit (second, minute, hour, day, week, month, year) or a window");
    }
    String name = yaml.scalar(unit.getValueNode(), "unit");
    TimeUnitName parsed = TimeUnitName.parse(name);
    if (parsed == null) {
      throw yaml.fault(
          unit.getValueNode(),
          "invalid rate limit unit '"
              + name
              + "'; use second, minute, hour, day, week, month or year");
    }
    return parsed.length();
  }

  private Duration duration(Node node, String what) throws ConfigException {
    try {
      return DurationText.parse(yaml.scalar(node, what).trim(), what);
    } catch (IllegalArgumentException e) {
      throw yaml.fault(node, e.getMessage());
    }
  }

  private List<String> replaces(NodeTuple field, String ownName) throws ConfigException {
    List<String> names = new ArrayList<>();
    if (field == null || YamlFields.isNull(field.getValueNode())) {
      return names;
    }
    Node list = field.getValueNode();
    if (!(list instanceof SequenceNode sequence)) {
      throw yaml.fault(list, "replaces must be a list of {name: ...}");
    }
    for (Node item : sequence.getValue()) {
      Map<String, NodeTuple> entry = yaml.mapping(item, REPLACES_KEYS, "a replaces entry");
      String name = YamlFields.orEmpty(yaml.string(entry, "name", item, false));
      if (name.isEmpty()) {
        throw yaml.fault(item, "should not have an empty replaces entry");
      }
      if (name.equals(ownName)) {
        throw yaml.fault(
            item, "replaces should not contain the name of its own rate_limit, '" + name + "'");
      }
      names.add(name);
    }
    return names;
  }
}
