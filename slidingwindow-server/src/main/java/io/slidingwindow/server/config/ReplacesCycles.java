package io.slidingwindow.server.config;

import io.slidingwindow.server.ConfigException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Refuses a domain whose {@code replaces} form a cycle: rule A replaces B and B replaces A, or A
 * replaces B, B replaces C and C replaces A, and so on. A request drops every matched rule whose
 * name another matched rule replaces (as envoyproxy/ratelimit does), so a request whose descriptors
 * match every rule of a cycle is counted by none of them, and with Envoy it then passes however
 * often it comes. Every rule of a domain can be matched by one request (each descriptor selects its
 * own), so every cycle can be reached. A chain (A replaces B, B replaces C) and a rule replaced by
 * several are no cycle: the rule at the head of the chain, which nothing matched replaces, counts.
 * Stateless.
 */
final class ReplacesCycles {

  private ReplacesCycles() {}

  /**
   * Checks the rules of one domain.
   *
   * @throws ConfigException naming each rule of the first cycle found, and where it is
   */
  static void check(List<Rule> domainRules) throws ConfigException {
    Map<String, List<Integer>> byName = new HashMap<>();
    for (int i = 0; i < domainRules.size(); i++) {
      String name = domainRules.get(i).name();
      if (!name.isEmpty()) {
        byName.computeIfAbsent(name, n -> new ArrayList<>()).add(i);
      }
    }
    int n = domainRules.size();
    List<List<Integer>> edges = new ArrayList<>(n);
    for (Rule rule : domainRules) {
      List<Integer> replaced = new ArrayList<>();
      for (String name : rule.replaces()) {
        replaced.addAll(byName.getOrDefault(name, List.of()));
      }
      edges.add(replaced);
    }
    // Depth first, without recursion: a long chain of replaces must not overflow the stack.
    int[] state = new int[n]; // 0 unseen, 1 on the path, 2 done
    int[] next = new int[n];
    List<Integer> path = new ArrayList<>();
    for (int start = 0; start < n; start++) {
      if (state[start] != 0 || edges.get(start).isEmpty()) {
        continue;
      }
      state[start] = 1;
      path.add(start);
      while (!path.isEmpty()) {
        int at = path.get(path.size() - 1);
        if (next[at] == edges.get(at).size()) {
          state[at] = 2;
          path.remove(path.size() - 1);
          continue;
        }
        int to = edges.get(at).get(next[at]++);
        if (state[to] == 1) {
          throw fault(domainRules, path.subList(path.indexOf(to), path.size()));
        }
        if (state[to] == 0) {
          state[to] = 1;
          path.add(to);
        }
      }
    }
  }

  private static ConfigException fault(List<Rule> rules, List<Integer> cycle) {
    Rule first = rules.get(cycle.get(0));
    StringBuilder text =
        new StringBuilder(first.source())
            .append(": replaces form a cycle, so a request matching all of its rules is counted by")
            .append(" none: ");
    for (int i = 0; i < cycle.size(); i++) {
      Rule rule = rules.get(cycle.get(i));
      Rule replaced = rules.get(cycle.get((i + 1) % cycle.size()));
      text.append(i == 0 ? "" : ", ")
          .append('\'')
          .append(rule.name())
          .append("' (")
          .append(rule.source())
          .append(") replaces '")
          .append(replaced.name())
          .append('\'');
    }
    return new ConfigException(text.append("; break the cycle").toString());
  }
}
