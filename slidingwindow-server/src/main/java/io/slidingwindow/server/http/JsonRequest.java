package io.slidingwindow.server.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.DecisionRequest;
import io.slidingwindow.server.decide.Decisions.BadRequest;

/**
 * The body of {@code POST /v1/decide} as a {@link DecisionRequest}: {@code {"domain": "...",
 * "hits": 1, "descriptors": [{"entries": [{"key": "...", "value": "..."}], "hits": 2}]}}, read once
 * and checked for types, so that every fault names where it is ({@code
 * descriptors[0].entries[1].key must be a string}); a field it does not know is refused the same
 * way. Immutable.
 */
final class JsonRequest implements DecisionRequest {

  private final String domain;
  private final long hits;
  private final String[][] keys;
  private final String[][] values;
  private final long[] descriptorHits;

  private JsonRequest(
      String domain, long hits, String[][] keys, String[][] values, long[] descriptorHits) {
    this.domain = domain;
    this.hits = hits;
    this.keys = keys;
    this.values = values;
    this.descriptorHits = descriptorHits;
  }

  /**
   * Reads {@code body}, a parsed JSON document.
   *
   * @throws BadRequest INVALID_ARGUMENT naming the first field that is missing or of a wrong type
   */
  static JsonRequest read(JsonNode body) {
    if (body == null || !body.isObject()) {
      throw BadRequest.invalid("the body must be a JSON object");
    }
    onlyFields(body, "", "the body has domain, hits, descriptors", "domain", "hits", "descriptors");
    String domain = text(body, "domain", "domain", true);
    long hits = hits(body.get("hits"), "hits");
    JsonNode list = body.get("descriptors");
    if (list == null || list.isNull()) {
      throw BadRequest.invalid("descriptors must not be empty");
    }
    if (!list.isArray()) {
      throw BadRequest.invalid("descriptors must be an array");
    }
    if (list.size() > Decider.MAX_DESCRIPTORS) {
      throw BadRequest.invalid(
          "at most " + Decider.MAX_DESCRIPTORS + " descriptors, had " + list.size());
    }
    int n = list.size();
    String[][] keys = new String[n][];
    String[][] values = new String[n][];
    long[] descriptorHits = new long[n];
    for (int d = 0; d < n; d++) {
      JsonNode descriptor = list.get(d);
      String where = "descriptors[" + d + "]";
      if (!descriptor.isObject()) {
        throw BadRequest.invalid(where + " must be an object with entries");
      }
      onlyFields(descriptor, where, "a descriptor has entries, hits", "entries", "hits");
      JsonNode entries = descriptor.get("entries");
      if (entries == null || !entries.isArray()) {
        throw BadRequest.invalid(where + ".entries must be an array of {key, value}");
      }
      if (entries.size() > Decider.MAX_ENTRIES) {
        throw BadRequest.invalid(
            where + " has " + entries.size() + " entries, at most " + Decider.MAX_ENTRIES);
      }
      keys[d] = new String[entries.size()];
      values[d] = new String[entries.size()];
      for (int e = 0; e < entries.size(); e++) {
        JsonNode entry = entries.get(e);
        String at = where + ".entries[" + e + "]";
        if (!entry.isObject()) {
          throw BadRequest.invalid(at + " must be an object {key, value}");
        }
        onlyFields(entry, at, "an entry has key, value", "key", "value");
        keys[d][e] = text(entry, "key", at + ".key", true);
        String value = text(entry, "value", at + ".value", false);
        values[d][e] = value == null ? "" : value;
      }
      JsonNode own = descriptor.get("hits");
      descriptorHits[d] = own == null || own.isNull() ? -1 : hits(own, where + ".hits");
    }
    return new JsonRequest(domain, hits, keys, values, descriptorHits);
  }

  /**
   * Refuses a field of {@code node} other than {@code names}: a misspelt one ({@code hit}, {@code
   * valeu}) would otherwise be dropped, and the request counted as if it had not been sent (one hit
   * instead of three, every client under the empty value).
   */
  private static void onlyFields(JsonNode node, String where, String expected, String... names) {
    var fields = node.fieldNames();
    while (fields.hasNext()) {
      String name = fields.next();
      boolean known = false;
      for (String allowed : names) {
        known |= allowed.equals(name);
      }
      if (!known) {
        throw BadRequest.invalid(
            "unknown field '"
                + name
                + "'"
                + (where.isEmpty() ? "" : " in " + where)
                + "; "
                + expected);
      }
    }
  }

  private static String text(JsonNode parent, String field, String where, boolean required) {
    JsonNode node = parent.get(field);
    if (node == null || node.isNull()) {
      if (required) {
        throw BadRequest.invalid(where + " is missing");
      }
      return null;
    }
    if (!node.isTextual()) {
      throw BadRequest.invalid(where + " must be a string");
    }
    return Json.checkText(node.textValue(), where);
  }

  private static long hits(JsonNode node, String where) {
    if (node == null || node.isNull()) {
      return 0;
    }
    if (!node.isIntegralNumber() || node.bigIntegerValue().signum() < 0) {
      throw BadRequest.invalid(where + " must be a whole number from 0, was " + node);
    }
    // Any size: more than a limit holds is refused by the decision, not failed (RequestChecks).
    return node.canConvertToLong() ? node.longValue() : Long.MAX_VALUE;
  }

  @Override
  public String domain() {
    return domain;
  }

  @Override
  public long hits() {
    return hits;
  }

  @Override
  public int count() {
    return keys.length;
  }

  @Override
  public int entries(int d) {
    return keys[d].length;
  }

  @Override
  public String key(int d, int e) {
    return keys[d][e];
  }

  @Override
  public String value(int d, int e) {
    return values[d][e];
  }

  @Override
  public long hits(int d) {
    return descriptorHits[d];
  }
}
