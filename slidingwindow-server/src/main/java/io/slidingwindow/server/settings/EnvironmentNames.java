package io.slidingwindow.server.settings;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Refuses an environment variable named like a setting that is none, such as {@code
 * SLIDINGWINDOW_REDIS_URI} for {@code SLIDINGWINDOW_REDIS}: ignored, it would leave the setting at
 * its default (counting in memory, each instance on its own) without a word. Every variable whose
 * name starts with {@code SLIDINGWINDOW_}, in any case, must be one that {@link Option} lists (with
 * {@code _FILE} for a secret), except those Kubernetes sets for a Service (see {@link
 * #serviceLink}). The same for system properties: every one whose name starts with {@code
 * slidingwindow.server.} must be an option's ({@link #checkProperties}). Stateless.
 */
public final class EnvironmentNames {

  /** The prefix of every setting's variable. */
  public static final String PREFIX = "SLIDINGWINDOW_";

  /** The prefix of every setting's system property. */
  public static final String PROPERTY_PREFIX = "slidingwindow.server.";

  /**
   * What Kubernetes appends to a Service's name (upper case, {@code _} for {@code -}) for its
   * variables: {@code _SERVICE_HOST}, {@code _SERVICE_PORT}, {@code _SERVICE_PORT_<PORT NAME>},
   * {@code _PORT}, {@code _PORT_<N>_<PROTOCOL>} and that with {@code _PROTO}, {@code _PORT} or
   * {@code _ADDR}.
   */
  private static final Pattern SERVICE_LINK =
      Pattern.compile(
          "SERVICE_HOST|SERVICE_PORT(_[A-Z0-9_]+)?|PORT(_[0-9]+_(TCP|UDP|SCTP)(_PROTO|_PORT|_ADDR)?)?");

  private EnvironmentNames() {}

  /**
   * Checks every name in {@code environment}.
   *
   * @throws IllegalArgumentException naming each unknown variable, the known one it probably means,
   *     and every known one
   */
  public static void check(Map<String, String> environment) {
    Set<String> known = known();
    Set<String> unknown = new TreeSet<>();
    for (String name : environment.keySet()) {
      if (name.toUpperCase(Locale.ROOT).startsWith(PREFIX)
          && !known.contains(name)
          && !serviceLink(name, environment.keySet())) {
        unknown.add(name);
      }
    }
    if (unknown.isEmpty()) {
      return;
    }
    List<String> each = new ArrayList<>();
    for (String name : unknown) {
      String meant = closest(name, known);
      each.add(name + (meant == null ? "" : " (did you mean " + meant + "?)"));
    }
    throw new IllegalArgumentException(
        "unknown environment variable"
            + (unknown.size() == 1 ? " " : "s ")
            + String.join(", ", each)
            + "; the service reads "
            + String.join(", ", new TreeSet<>(known)));
  }

  /**
   * Checks every system property name in {@code names}: one starting with {@value
   * #PROPERTY_PREFIX}, in any case, must be an option's, such as {@code slidingwindow.server.redis}
   * (a secret's too: reading it refuses it with its own message).
   *
   * @throws IllegalArgumentException naming each unknown property, the known one it probably means,
   *     and every known one
   */
  public static void checkProperties(Set<String> names) {
    Map<String, Option> byVariable = new TreeMap<>();
    Set<String> known = new TreeSet<>();
    for (Option option : Option.values()) {
      byVariable.put(option.environmentVariable(), option);
      known.add(option.systemProperty());
    }
    List<String> each = new ArrayList<>();
    for (String name : new TreeSet<>(names)) {
      if (!name.toLowerCase(Locale.ROOT).startsWith(PROPERTY_PREFIX) || known.contains(name)) {
        continue;
      }
      // Spelt as a variable, the name meets the same rules of what it probably means.
      String variable = PREFIX + snake(name.substring(PROPERTY_PREFIX.length()));
      String meant = closest(variable, known());
      Option option = meant == null ? null : byVariable.get(meant.replaceFirst("_FILE$", ""));
      each.add(
          "-D"
              + name
              + (option == null
                  ? ""
                  : option.secret()
                      ? " (did you mean " + meant + "? a secret is read from the environment only)"
                      : " (did you mean -D" + option.systemProperty() + "?)"));
    }
    if (each.isEmpty()) {
      return;
    }
    throw new IllegalArgumentException(
        "unknown system propert"
            + (each.size() == 1 ? "y " : "ies ")
            + String.join(", ", each)
            + "; the service reads "
            + String.join(", ", known));
  }

  /**
   * {@code redisBreaker}, {@code redis.breaker} or {@code REDIS.BREAKER} as {@code REDIS_BREAKER}:
   * a word starts at an upper-case letter after a lower-case one or a digit.
   */
  static String snake(String property) {
    StringBuilder text = new StringBuilder();
    for (int i = 0; i < property.length(); i++) {
      char c = property.charAt(i);
      char before = i == 0 ? '_' : property.charAt(i - 1);
      if (Character.isUpperCase(c)
          && (Character.isLowerCase(before) || Character.isDigit(before))) {
        text.append('_');
      }
      text.append(c == '.' || c == '-' ? '_' : Character.toUpperCase(c));
    }
    return text.toString();
  }

  /** Every variable a setting is read from: each option's, and {@code _FILE} for a secret. */
  public static Set<String> known() {
    Set<String> names = new TreeSet<>();
    for (Option option : Option.values()) {
      names.add(option.environmentVariable());
      if (option.secret()) {
        names.add(option.environmentVariable() + "_FILE");
      }
    }
    return names;
  }

  /**
   * Whether {@code name} is one of the variables Kubernetes sets in a pod for each Service of its
   * namespace (unless the pod says {@code enableServiceLinks: false}), such as {@code
   * SLIDINGWINDOW_SERVER_SERVICE_HOST} for the Service {@code slidingwindow-server}: only when both
   * {@code _SERVICE_HOST} and {@code _SERVICE_PORT} of that Service are there too, so that a
   * misspelt setting ending in {@code _PORT} is not taken for one.
   */
  static boolean serviceLink(String name, Set<String> names) {
    for (int i = name.indexOf('_'); i > 0; i = name.indexOf('_', i + 1)) {
      String service = name.substring(0, i);
      if (SERVICE_LINK.matcher(name.substring(i + 1)).matches()
          && names.contains(service + "_SERVICE_HOST")
          && names.contains(service + "_SERVICE_PORT")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The known name {@code name} probably means: the same but for case; else one at most an edit or
   * two away (a letter wrong, missing, extra or two swapped); else the longest one it extends
   * ({@code SLIDINGWINDOW_REDIS} for {@code SLIDINGWINDOW_REDIS_URI}); else the shortest that
   * extends it ({@code SLIDINGWINDOW_DRAIN_TIMEOUT} for {@code SLIDINGWINDOW_DRAIN}); else null.
   */
  static String closest(String name, Set<String> known) {
    String upper = name.toUpperCase(Locale.ROOT);
    if (known.contains(upper)) {
      return upper;
    }
    String suffix = upper.substring(PREFIX.length());
    int allowed = suffix.length() <= 4 ? 1 : suffix.length() <= 10 ? 2 : 3;
    String best = null;
    int bestDistance = allowed + 1;
    for (String candidate : known) {
      int distance = distance(suffix, candidate.substring(PREFIX.length()));
      if (distance < bestDistance) {
        best = candidate;
        bestDistance = distance;
      }
    }
    if (best != null) {
      return best;
    }
    for (String candidate : known) {
      if (upper.startsWith(candidate + "_")
          && (best == null || candidate.length() > best.length())) {
        best = candidate;
      }
    }
    if (best != null || suffix.isEmpty()) {
      return best;
    }
    for (String candidate : known) {
      if (candidate.startsWith(upper + "_")
          && (best == null || candidate.length() < best.length())) {
        best = candidate;
      }
    }
    return best;
  }

  /** The optimal string alignment distance: edits and swaps of neighbours, one each. */
  static int distance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    Arrays.setAll(d[0], j -> j);
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1
            && j > 1
            && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
