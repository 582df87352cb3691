package io.slidingwindow.server.internal;

import io.slidingwindow.Limit;
import io.slidingwindow.server.ConfigException;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

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
 * or ISO-8601 ({@code PT1M30S}). At the top, {@code failure_policy} ({@code open}, {@code closed}
 * or {@code local}) says what answers while Redis fails, when counts live there.
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
  private static final long MAX_UINT32 = 0xFFFF_FFFFL;

  private final Map<String, DescriptorNode> domains = new HashMap<>();
  private final List<Rule> rules = new ArrayList<>();
  private String file;
  private FailureMode failureMode;

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
    return new RateLimitConfig(parser.domains, parser.rules);
  }

  private void parseFile(Source source) throws ConfigException {
    file = source.name();
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
    Map<String, NodeTuple> fields = mapping(root, ROOT_KEYS, "the file");
    String domain = string(fields, "domain", root, true);
    if (domain.isEmpty()) {
      throw fault(root, "domain must not be empty");
    }
    if (domains.containsKey(domain)) {
      throw fault(fields.get("domain").getValueNode(), "domain '" + domain + "' is defined twice");
    }
    failureMode = FailureMode.OPEN;
    String policy = string(fields, "failure_policy", root, false);
    if (policy != null) {
      failureMode = FailureMode.parse(policy);
      if (failureMode == null) {
        throw fault(
            fields.get("failure_policy").getValueNode(),
            "failure_policy must be open, closed or local, was '" + policy + "'");
      }
    }
    DescriptorNode tree = descriptors(domain, "", fields.get("descriptors"));
    domains.put(domain, tree);
  }

  private DescriptorNode descriptors(String domain, String parentPath, NodeTuple field)
      throws ConfigException {
    DescriptorNode level = new DescriptorNode();
    if (field == null || isNull(field.getValueNode())) {
      return level;
    }
    Node list = field.getValueNode();
    if (!(list instanceof SequenceNode sequence)) {
      throw fault(list, "descriptors must be a list");
    }
    for (Node item : sequence.getValue()) {
      Map<String, NodeTuple> fields = mapping(item, DESCRIPTOR_KEYS, "a descriptor");
      String key = string(fields, "key", item, true);
      if (key.isEmpty()) {
        throw fault(item, "descriptor key must not be empty");
      }
      String value = string(fields, "value", item, false);
      if (value != null && value.isEmpty()) {
        value = null;
      }
      String path =
          parentPath + (parentPath.isEmpty() ? "" : ".") + key + (value == null ? "" : "_" + value);
      boolean shadowMode = bool(fields, "shadow_mode");
      bool(fields, "quota_mode");
      bool(fields, "detailed_metric");
      bool(fields, "value_to_metric");
      boolean shareThreshold = bool(fields, "share_threshold");
      if (shareThreshold && (value == null || !value.contains("*"))) {
        throw fault(
            fields.get("share_threshold").getKeyNode(),
            "share_threshold needs a value with a '*' wildcard, but descriptor '"
                + path
                + "' has none");
      }
      Rule rule = rule(domain, path, shadowMode, fields);
      if (rule != null) {
        rules.add(rule);
      }
      DescriptorNode children = descriptors(domain, path, fields.get("descriptors"));
      if (!level.add(new DescriptorNode.Child(key, value, shareThreshold, rule, children))) {
        throw fault(item, "descriptor '" + path + "' is defined twice at this level");
      }
    }
    return level;
  }

  private Rule rule(String domain, String path, boolean shadowMode, Map<String, NodeTuple> fields)
      throws ConfigException {
    NodeTuple single = fields.get("rate_limit");
    NodeTuple extra = fields.get("rate_limits");
    boolean hasSingle = single != null && !isNull(single.getValueNode());
    boolean hasExtra = extra != null && !isNull(extra.getValueNode());
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
      Map<String, NodeTuple> limit = mapping(block, RATE_LIMIT_KEYS, "rate_limit");
      unlimited = bool(limit, "unlimited");
      name = orEmpty(string(limit, "name", block, false));
      replaces = replaces(limit.get("replaces"), name);
      if (unlimited) {
        for (String forbidden : List.of("unit", "window", "requests_per_unit", "precision")) {
          if (limit.containsKey(forbidden)) {
            throw fault(
                limit.get(forbidden).getKeyNode(), "an unlimited rate_limit has no " + forbidden);
          }
        }
        if (hasExtra) {
          throw fault(extra.getKeyNode(), "an unlimited descriptor has no rate_limits");
        }
      } else {
        Duration window = window(limit, block, "rate_limit");
        long requests = count(limit, "requests_per_unit", block, 0);
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
        throw fault(list, "rate_limits must be a non-empty list of {requests, window}");
      }
      for (Node item : sequence.getValue()) {
        Map<String, NodeTuple> limit = mapping(item, EXTRA_LIMIT_KEYS, "a rate_limits entry");
        if (!limit.containsKey("window")) {
          throw fault(item, "a rate_limits entry needs a window, such as 90s");
        }
        long requests = count(limit, "requests", item, 1);
        limits.add(limit(requests, window(limit, item, "a rate_limits entry"), limit, item));
      }
    }
    if (blocked) {
      limits.clear();
    }
    return new Rule(
        domain,
        path,
        limits,
        unlimited,
        blocked,
        blockedUnit,
        shadowMode,
        name,
        replaces,
        file + " line " + line,
        failureMode);
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
        throw fault(at, "limit " + limit + " would need too many buckets; use a coarser precision");
      }
      return limit;
    } catch (IllegalArgumentException e) {
      throw fault(at, e.getMessage());
    }
  }

  private Duration window(Map<String, NodeTuple> fields, Node at, String what)
      throws ConfigException {
    NodeTuple unit = fields.get("unit");
    NodeTuple window = fields.get("window");
    if (unit != null && window != null) {
      throw fault(window.getKeyNode(), what + " has both unit and window; give one");
    }
    if (window != null) {
      return duration(window.getValueNode(), "window");
    }
    if (unit == null) {
      throw fault(
          at, what + " needs a unit (second, minute, hour, day, week, month, year) or a window");
    }
    String name = scalar(unit.getValueNode(), "unit");
    TimeUnitName parsed = TimeUnitName.parse(name);
    if (parsed == null) {
      throw fault(
          unit.getValueNode(),
          "invalid rate limit unit '"
              + name
              + "'; use second, minute, hour, day, week, month or year");
    }
    return parsed.length();
  }

  private Duration duration(Node node, String what) throws ConfigException {
    try {
      return DurationText.parse(scalar(node, what).trim(), what);
    } catch (IllegalArgumentException e) {
      throw fault(node, e.getMessage());
    }
  }

  private List<String> replaces(NodeTuple field, String ownName) throws ConfigException {
    List<String> names = new ArrayList<>();
    if (field == null || isNull(field.getValueNode())) {
      return names;
    }
    Node list = field.getValueNode();
    if (!(list instanceof SequenceNode sequence)) {
      throw fault(list, "replaces must be a list of {name: ...}");
    }
    for (Node item : sequence.getValue()) {
      Map<String, NodeTuple> entry = mapping(item, REPLACES_KEYS, "a replaces entry");
      String name = orEmpty(string(entry, "name", item, false));
      if (name.isEmpty()) {
        throw fault(item, "should not have an empty replaces entry");
      }
      if (name.equals(ownName)) {
        throw fault(
            item, "replaces should not contain the name of its own rate_limit, '" + name + "'");
      }
      names.add(name);
    }
    return names;
  }

  private long count(Map<String, NodeTuple> fields, String key, Node at, long min)
      throws ConfigException {
    NodeTuple field = fields.get(key);
    if (field == null) {
      if (min == 0) {
        return 0;
      }
      throw fault(at, key + " is missing");
    }
    String text = scalar(field.getValueNode(), key).trim();
    long parsed = -1;
    if (text.matches("\\d{1,10}")) {
      parsed = Long.parseLong(text);
    }
    if (parsed < min || parsed > MAX_UINT32) {
      throw fault(
          field.getValueNode(),
          key
              + " must be a whole number from "
              + min
              + " to "
              + MAX_UINT32
              + ", was '"
              + text
              + "'");
    }
    return parsed;
  }

  private boolean bool(Map<String, NodeTuple> fields, String key) throws ConfigException {
    NodeTuple field = fields.get(key);
    if (field == null || isNull(field.getValueNode())) {
      return false;
    }
    String text = scalar(field.getValueNode(), key).trim().toLowerCase(Locale.ROOT);
    switch (text) {
      case "true", "yes", "on" -> {
        return true;
      }
      case "false", "no", "off" -> {
        return false;
      }
      default ->
          throw fault(field.getValueNode(), key + " must be true or false, was '" + text + "'");
    }
  }

  private String string(Map<String, NodeTuple> fields, String key, Node at, boolean required)
      throws ConfigException {
    NodeTuple field = fields.get(key);
    if (field == null || isNull(field.getValueNode())) {
      if (required) {
        throw fault(at, key + " is missing");
      }
      return null;
    }
    return scalar(field.getValueNode(), key);
  }

  private String scalar(Node node, String what) throws ConfigException {
    if (!(node instanceof ScalarNode scalar)) {
      throw fault(node, what + " must be a single value, not a list or a map");
    }
    return scalar.getValue();
  }

  private Map<String, NodeTuple> mapping(Node node, Set<String> allowed, String what)
      throws ConfigException {
    if (!(node instanceof MappingNode map)) {
      throw fault(node, what + " must be a map of keys to values");
    }
    Map<String, NodeTuple> fields = new LinkedHashMap<>();
    for (NodeTuple tuple : map.getValue()) {
      String key = scalar(tuple.getKeyNode(), "a key");
      if (!allowed.contains(key)) {
        throw fault(
            tuple.getKeyNode(),
            "unknown key '"
                + key
                + "' in "
                + what
                + "; allowed: "
                + String.join(", ", sorted(allowed)));
      }
      if (fields.put(key, tuple) != null) {
        throw fault(tuple.getKeyNode(), "key '" + key + "' appears twice");
      }
    }
    return fields;
  }

  private static List<String> sorted(Set<String> keys) {
    List<String> list = new ArrayList<>(keys);
    list.sort(null);
    return list;
  }

  private static boolean isNull(Node node) {
    return node instanceof ScalarNode && node.getTag().equals(Tag.NULL);
  }

  private static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  private ConfigException fault(Node at, String message) {
    return new ConfigException(
        file + " line " + (at.getStartMark().getLine() + 1) + ": " + message);
  }
}
