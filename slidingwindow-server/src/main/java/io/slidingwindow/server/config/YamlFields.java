package io.slidingwindow.server.config;

import io.slidingwindow.server.ConfigException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * Reads the fields of one configuration file's YAML nodes, with errors that name the file and the
 * line. Not thread-safe.
 */
final class YamlFields {

  private static final long MAX_UINT32 = 0xFFFF_FFFFL;

  private final String file;

  YamlFields(String file) {
    this.file = file;
  }

  long count(Map<String, NodeTuple> fields, String key, Node at, long min) throws ConfigException {
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

  boolean bool(Map<String, NodeTuple> fields, String key) throws ConfigException {
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

  String string(Map<String, NodeTuple> fields, String key, Node at, boolean required)
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

  String scalar(Node node, String what) throws ConfigException {
    if (!(node instanceof ScalarNode scalar)) {
      throw fault(node, what + " must be a single value, not a list or a map");
    }
    return scalar.getValue();
  }

  Map<String, NodeTuple> mapping(Node node, Set<String> allowed, String what)
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

  static List<String> sorted(Set<String> keys) {
    List<String> list = new ArrayList<>(keys);
    list.sort(null);
    return list;
  }

  static boolean isNull(Node node) {
    return node instanceof ScalarNode && node.getTag().equals(Tag.NULL);
  }

  static String orEmpty(String s) {
    return s == null ? "" : s;
  }

  ConfigException fault(Node at, String message) {
    return new ConfigException(
        file + " line " + (at.getStartMark().getLine() + 1) + ": " + message);
  }
}
